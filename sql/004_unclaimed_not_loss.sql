-- 004: an event no binding claimed within the spool TTL is ordinary host activity, not capture loss
-- (src/telemetry/spool.ts). Such events keep spool_state 2, now named `unclaimed`; stores written
-- before this format recorded them as `spool_expiry` coverage gaps, which kept health `degraded`
-- on every host. Those gaps go; their counter keeps its value under the new name. Overflow gaps stay.
DELETE FROM coverage_gaps WHERE kind = 'spool_expiry';
UPDATE producer_counters SET counter = 'unclaimed' WHERE source = 'spool' AND counter = 'expired';
