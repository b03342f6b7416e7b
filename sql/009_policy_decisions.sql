-- 009: the policy's decisions on stored events (src/security/): one row per event the policy did
-- not simply allow (deny, quarantine or kill, or allow with a detect-only advisory). A risk is a
-- decision with its event. `event_hash` is the event's hash when it was judged. No key: event ids
-- are unique already, and an index costs every commit (risks are read through the events' run).

CREATE TABLE policy_decisions (
  event_id VARCHAR NOT NULL,
  event_hash VARCHAR NOT NULL,
  decision VARCHAR NOT NULL,
  rule_id VARCHAR NOT NULL,
  severity VARCHAR NOT NULL,
  reason VARCHAR NOT NULL,
  advisory_rule_id VARCHAR,
  advisory_decision VARCHAR,
  advisory_reason VARCHAR,
  policy VARCHAR NOT NULL,
  decided_ns BIGINT NOT NULL
);

-- the events the policy judged, so a run's risks are found by probing its events in seq ranges as
-- its events page does, not by joining every decision of the store
ALTER TABLE events ADD COLUMN judged BOOLEAN DEFAULT false;
