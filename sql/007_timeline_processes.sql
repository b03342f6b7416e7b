-- 007: the causality view's per-process rollup of a run's events, kept at write time so the view
-- reads one row per process instead of every event of the run (src/telemetry/timeline/process-rollup.ts).
-- A row covers the events of one run, tool call and process (tgid, else pid) that joined the run:
-- at commit, or when a binding claimed them from the spool. The rollup is folded in behind the
-- commits: timeline_rollup_mark holds the position up to which it covers the events, so a store
-- from before this format starts at 0 and is folded in whole.

CREATE TABLE timeline_processes (
  run_id          VARCHAR NOT NULL,
  tool_call_id    VARCHAR NOT NULL,    -- '' for the run's events of no tool call
  tgid            BIGINT NOT NULL,     -- coalesce(tgid, pid); -1 for events with neither
  events          BIGINT NOT NULL,
  first_ns        BIGINT NOT NULL,     -- capture instants of its first and last events
  last_ns         BIGINT NOT NULL,
  -- the earliest event (by time_ns, then seq) with a ppid, with a comm, the earliest execve with a
  -- comm, and the earliest execve (its attrs hold the binary and argv); null when there is none
  ppid            STRUCT(time_ns BIGINT, seq BIGINT, ppid UINTEGER),
  comm            STRUCT(time_ns BIGINT, seq BIGINT, comm VARCHAR),
  exec_comm       STRUCT(time_ns BIGINT, seq BIGINT, comm VARCHAR),
  exec            STRUCT(time_ns BIGINT, seq BIGINT, attrs VARCHAR),
  -- its first events (at most the view's events_per_process), whole, in (time_ns, seq) order
  first_events    STRUCT(
                    time_ns BIGINT, seq BIGINT, id VARCHAR, run_id VARCHAR, type UTINYINT, source UTINYINT,
                    time VARCHAR, ingested_ns BIGINT, pid UINTEGER, tgid UINTEGER, ppid UINTEGER, uid BIGINT,
                    comm VARCHAR, cgroup_id VARCHAR, container_id VARCHAR, tool_call_id VARCHAR,
                    binding_id VARCHAR, corr_method UTINYINT, corr_confidence DOUBLE,
                    evidence_level UTINYINT, attrs VARCHAR, hash VARCHAR
                  )[] NOT NULL,
  PRIMARY KEY (run_id, tool_call_id, tgid)
);

-- The same processes' events counted by type.
CREATE TABLE timeline_process_types (
  run_id          VARCHAR NOT NULL,
  tool_call_id    VARCHAR NOT NULL,
  tgid            BIGINT NOT NULL,
  type            UTINYINT NOT NULL,
  events          BIGINT NOT NULL,
  PRIMARY KEY (run_id, tool_call_id, tgid, type)
);

-- Positions below through_seq are folded into the two tables above; one row.
CREATE TABLE timeline_rollup_mark (through_seq BIGINT NOT NULL);
INSERT INTO timeline_rollup_mark VALUES (0);
