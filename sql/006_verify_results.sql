-- 006: the outcome of the latest verify of each run, so the observability summary can report it.

CREATE TABLE verify_results (
  run_id          VARCHAR PRIMARY KEY,
  status          VARCHAR NOT NULL,    -- ok, failed
  error_count     BIGINT NOT NULL,
  warning_count   BIGINT NOT NULL,
  verified_ns     BIGINT NOT NULL
);
