-- 006: the latest verify of each run, and where settled spool events went.

CREATE TABLE verify_results (
  run_id          VARCHAR PRIMARY KEY,
  status          VARCHAR NOT NULL,    -- ok, failed
  error_count     BIGINT NOT NULL,
  warning_count   BIGINT NOT NULL,
  verified_ns     BIGINT NOT NULL
);

-- The capture-time span of each ingest batch's events that a binding claimed from the spool (ids
-- `<batch>.<index>`): settling rewrites their seq, which spoils seq's zone maps, but never their
-- time, so an event is found by id through time_ns's zone maps instead of a full scan.
CREATE TABLE settled_ranges (
  batch_id        VARCHAR NOT NULL,
  time_from_ns    BIGINT NOT NULL,
  time_to_ns      BIGINT NOT NULL      -- inclusive
);
