-- 005: the provenance graph. Objects are canonical JSON (RFC 8785) addressed by the sha256 of
-- those bytes (src/provenance/graph-object.ts); each names its run and its parents' hashes.

CREATE TABLE objects (
  hash            VARCHAR PRIMARY KEY, -- sha256:<hex> of `body`
  kind            VARCHAR NOT NULL,    -- run, tool_call, binding, artifact, file_effect, event_batch, checkpoint
  run_id          VARCHAR NOT NULL,
  chain_index     BIGINT,              -- position in its run's chain, for event_batch and checkpoint
  body            VARCHAR NOT NULL,    -- the canonical JSON, exactly the bytes hashed
  created_ns      BIGINT NOT NULL
);

-- The latest object of each chain of a run: `context` (bindings, tool calls, artifacts, file
-- effects), `event_batch` and `checkpoint`. A checkpoint is due when another chain moved after it.
CREATE TABLE run_heads (
  run_id          VARCHAR NOT NULL,
  chain           VARCHAR NOT NULL,
  hash            VARCHAR NOT NULL,
  chain_index     BIGINT NOT NULL,
  updated_ns      BIGINT NOT NULL,
  PRIMARY KEY (run_id, chain)
);

-- The run object of each run; null for runs stored before format 5 until the graph backfills them.
ALTER TABLE runs ADD COLUMN object_hash VARCHAR;
ALTER TABLE bindings ADD COLUMN object_hash VARCHAR;

-- Which events an event_batch seals: those of its run with seq in [seq_from, seq_to).
ALTER TABLE event_batches ADD COLUMN seq_from BIGINT;
ALTER TABLE event_batches ADD COLUMN seq_to BIGINT;
ALTER TABLE event_batches ADD COLUMN object_hash VARCHAR;

-- Tool calls as POST /v1/record stored them (executed, or asserted with execute:false).
CREATE TABLE tool_calls (
  run_id          VARCHAR NOT NULL,
  tool_call_id    VARCHAR NOT NULL,
  status          VARCHAR NOT NULL,    -- asserted, running, completed, failed, timeout, error
  record          JSON NOT NULL,       -- the provenance.record/v1 body
  object_hash     VARCHAR NOT NULL,
  started_ns      BIGINT NOT NULL,
  ended_ns        BIGINT,
  PRIMARY KEY (run_id, tool_call_id)
);

-- Content-addressed bytes (stdout, stderr, file contents when kept), by sha256:<hex> of the bytes.
CREATE TABLE artifacts (
  hash            VARCHAR PRIMARY KEY,
  content         BLOB NOT NULL,
  size            BIGINT NOT NULL,     -- bytes of the whole content (content may be a bounded prefix)
  truncated       BOOLEAN NOT NULL,
  created_ns      BIGINT NOT NULL
);

-- Signed checkpoints: the DSSE envelope over a checkpoint object's body.
CREATE TABLE checkpoints (
  hash            VARCHAR PRIMARY KEY, -- the checkpoint object's hash
  run_id          VARCHAR NOT NULL,
  chain_index     BIGINT NOT NULL,
  envelope        VARCHAR NOT NULL,    -- DSSE JSON: payloadType, payload (base64), signatures
  key_id          VARCHAR NOT NULL,
  created_ns      BIGINT NOT NULL
);

-- Every public key that signed a checkpoint in this store (served by GET /v1/graph/keys).
CREATE TABLE signing_keys (
  key_id          VARCHAR PRIMARY KEY, -- sha256:<hex> of the SPKI DER public key
  public_key_pem  VARCHAR NOT NULL,
  created_ns      BIGINT NOT NULL
);
