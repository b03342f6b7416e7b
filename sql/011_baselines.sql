-- 011: behaviour baselines and what deviations are measured against (src/security/baseline/).

-- Each run's behaviour, one row per measure and value: the binaries it executed, the path prefixes
-- it read and wrote, the destinations it connected to, the DNS names it looked up. Folded in with
-- the process rollup, behind the commits and under its mark (behaviour-rollup.ts), so learning a
-- baseline and listing a run's deviations read one row per distinct value, never the run's events.
CREATE TABLE run_behaviour (
  run_id          VARCHAR NOT NULL,
  measure         UTINYINT NOT NULL,   -- position in setMeasures (baseline-measures.ts)
  value           VARCHAR NOT NULL,
  events          BIGINT NOT NULL,
  flagged         BIGINT NOT NULL,     -- of them, events the policy did not simply allow (events.judged)
  first_ids       VARCHAR[] NOT NULL,  -- ids of its first few events, by position
  PRIMARY KEY (run_id, measure, value)
);

-- Each run's busiest window per window length and event type, folded in with run_behaviour from the
-- windows its folded events fall in: a window's count only grows, so the busiest only moves up.
CREATE TABLE run_rates (
  run_id          VARCHAR NOT NULL,
  window_s        UTINYINT NOT NULL,   -- 10 or 60
  type            UTINYINT NOT NULL,
  peak            BIGINT NOT NULL,     -- the most events of the type in one window
  peak_ns         BIGINT NOT NULL,     -- the start of the earliest window holding that many
  PRIMARY KEY (run_id, window_s, type)
);

-- Learned baselines: one row per version of a name; a version is never changed or removed.
CREATE TABLE baselines (
  name            VARCHAR NOT NULL,    -- the identity it describes: an agent, or a tool
  version         BIGINT NOT NULL,     -- 1, 2, 3... per name
  runs            VARCHAR[] NOT NULL,  -- the runs it was learned from, sorted
  profile         VARCHAR NOT NULL,    -- canonical JSON (RFC 8785) of the profile
  profile_sha256  VARCHAR NOT NULL,    -- sha256:<hex> of those bytes
  expected        VARCHAR NOT NULL,    -- what deviations show of it (JSON): per measure its 10 most common
                                       -- values, how many it holds and whether it was cut; its rates
  created_ns      BIGINT NOT NULL,
  PRIMARY KEY (name, version)
);

-- Each version's set values, one row per measure and value, written with its baselines row from
-- the same profile: deviations join a run's behaviour against them instead of binding up to 5,000
-- values to every query.
CREATE TABLE baseline_values (
  name            VARCHAR NOT NULL,
  version         BIGINT NOT NULL,
  measure         UTINYINT NOT NULL,   -- position in setMeasures
  rank            BIGINT NOT NULL,     -- position in the profile's list of the measure, from 1
  value           VARCHAR NOT NULL
);

-- the events folded in before this format are not in run_behaviour and run_rates: fold every event in again
DELETE FROM timeline_processes;
DELETE FROM timeline_process_types;
UPDATE timeline_rollup_mark SET through_seq = 0;
