-- 015: the host chain. Host events (no run: unclaimed or overflowed spool rows) had digests in
-- event_batches but nothing signed them, so nothing could tell a removed host event from one never
-- stored. Each entry of this chain signs the digests of host events that remain (and, when host
-- retention removed some, which digests it removed and their roots), chained by hash and signed as
-- a DSSE envelope like a run's checkpoint (src/provenance/host/).
CREATE TABLE host_chain (
  chain_index     BIGINT PRIMARY KEY,
  hash            VARCHAR NOT NULL,    -- sha256:<hex> of `body`
  body            VARCHAR NOT NULL,    -- canonical JSON {kind, parents, payload}
  envelope        VARCHAR NOT NULL,    -- DSSE JSON over `body`
  key_id          VARCHAR NOT NULL,
  created_ns      BIGINT NOT NULL
);
