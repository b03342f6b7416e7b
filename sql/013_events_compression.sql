-- 013: the events table again, with the compression of its two unique texts named, so that
-- DuckDB's checkpoints stop trying every method on them in every row group (finding a column's
-- compression was about half of a checkpoint, and checkpoints a third of what DuckDB spends on an
-- ingested event). `id` (<batch>.<index>) and `hash` (sha256:<hex>) never repeat, so FSST, which
-- DuckDB chose for them by itself, is always the right method for them: the daemon's own rows,
-- loaded outside it in request-sized transactions, cost DuckDB 3.95-4.05 us a row instead of
-- 4.25-4.3, in a file of the same size. Columns whose values may repeat are left to DuckDB: naming
-- FSST for time and attrs too saved about 0.15 us more, but stores repeated times (a producer's
-- whole seconds) far larger than the dictionary DuckDB picks for them, and a dictionary named for
-- the short names doubled the space of a column whose values a producer makes all distinct.
-- Numbers too (naming theirs changed nothing). Same columns, order, types and defaults as before:
-- every reader and writer stays as it is.
CREATE TABLE events_named_compression (
  id              VARCHAR NOT NULL USING COMPRESSION fsst,
  seq             BIGINT NOT NULL,
  run_id          VARCHAR,
  type            UTINYINT NOT NULL,
  source          UTINYINT NOT NULL,
  time            VARCHAR NOT NULL,
  time_ns         BIGINT NOT NULL,
  ingested_ns     BIGINT NOT NULL,
  pid             UINTEGER,
  tgid            UINTEGER,
  ppid            UINTEGER,
  uid             BIGINT,
  comm            VARCHAR,
  cgroup_id       VARCHAR,
  container_id    VARCHAR,
  tool_call_id    VARCHAR,
  binding_id      VARCHAR,
  corr_method     UTINYINT NOT NULL,
  corr_confidence DOUBLE,
  evidence_level  UTINYINT NOT NULL,
  spool_state     UTINYINT NOT NULL,
  attrs           VARCHAR NOT NULL,
  hash            VARCHAR NOT NULL USING COMPRESSION fsst,
  risky           BOOLEAN,
  bytes           BIGINT,
  judged          BOOLEAN DEFAULT false
);
INSERT INTO events_named_compression SELECT * FROM events;
DROP TABLE events;
ALTER TABLE events_named_compression RENAME TO events;
