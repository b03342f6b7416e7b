-- 001: the store format record and the coverage gap ledger.

-- One row per applied migration; the store format version is the highest `version`.
-- `checksum` is the sha256 of the migration file, so a database from a diverging build is recognised.
CREATE TABLE store_format (
  version     INTEGER PRIMARY KEY,
  name        VARCHAR NOT NULL,
  checksum    VARCHAR NOT NULL,
  applied_at  TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);

-- Capture that provd knows it missed: kernel loss, truncation, reassembly eviction, spool expiry or
-- overflow, unsupported or stripped TLS targets. Health reports `gaps_recorded` while any row exists.
CREATE TABLE coverage_gaps (
  id              VARCHAR NOT NULL,
  run_id          VARCHAR,            -- null when the loss cannot be tied to one run
  kind            VARCHAR NOT NULL,   -- kernel_loss, truncation, reassembly_eviction, spool_expiry, ...
  source          VARCHAR NOT NULL,   -- provd_sensor, tetragon, falco, native_jsonl, http, spool
  start_ns        BIGINT NOT NULL,    -- first instant of the gap, Unix nanoseconds
  end_ns          BIGINT NOT NULL,
  lost_events     BIGINT,             -- null when the count is unknown
  lost_bytes      BIGINT,
  detail          JSON,
  recorded_at_ns  BIGINT NOT NULL
);
