-- 010: what provd did about the policy's decisions (src/security/responses/). A response to a risk
-- is derived when it is read (a recommendation to the caller); only what provd really did is kept:
-- the kill of a command it ran itself (POST /v1/record), one row per kill, with its outcome.

CREATE TABLE enforcements (
  event_id          VARCHAR NOT NULL,  -- the event whose kill decision provd enforced
  run_id            VARCHAR NOT NULL,
  tool_call_id      VARCHAR NOT NULL,
  binding_id        VARCHAR NOT NULL,
  rule_id           VARCHAR NOT NULL,
  action            VARCHAR NOT NULL,  -- kill
  target_kind       VARCHAR NOT NULL,  -- cgroup, process_group
  target_id         VARCHAR NOT NULL,  -- the cgroup id, or the process group id
  outcome           VARCHAR NOT NULL,  -- killed, ended (nothing was left to kill), failed
  processes_killed  INTEGER,           -- null when it could not be counted (a process group)
  message           VARCHAR NOT NULL,
  enforced_ns       BIGINT NOT NULL
);

-- the run of a decision's event (null while it waits in the spool), so verify finds a decision whose
-- event has gone missing; and its position, so a page of judged events finds its decisions through
-- zone maps (decisions are written in their events' order) instead of a scan of every decision
ALTER TABLE policy_decisions ADD COLUMN run_id VARCHAR;
ALTER TABLE policy_decisions ADD COLUMN seq BIGINT;
UPDATE policy_decisions SET run_id = events.run_id, seq = events.seq
  FROM events WHERE events.id = policy_decisions.event_id;

-- the policy's decisions on a batch's events of a run, sealed with it: how many, and a Merkle root
-- over their leaves (src/provenance/decision-leaf.ts) in event order; null for batches made before
ALTER TABLE event_batches ADD COLUMN judged BIGINT;
ALTER TABLE event_batches ADD COLUMN judgment_root VARCHAR;
