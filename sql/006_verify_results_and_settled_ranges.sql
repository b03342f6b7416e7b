-- 006: the latest verify of each run, and where settled spool events went.

CREATE TABLE verify_results (
  run_id          VARCHAR PRIMARY KEY,
  status          VARCHAR NOT NULL,    -- ok, failed
  error_count     BIGINT NOT NULL,
  warning_count   BIGINT NOT NULL,
  verified_ns     BIGINT NOT NULL
);

-- Where the spool put the events of an ingest batch when a binding claimed them: the new seq range
-- of the batch's events (ids `<batch>.<index>`), so an event is found by id without a full scan.
CREATE TABLE settled_ranges (
  batch_id        VARCHAR NOT NULL,
  seq_from        BIGINT NOT NULL,
  seq_to          BIGINT NOT NULL
);
