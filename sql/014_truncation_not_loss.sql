-- 014: a record the sensor kept but cut at its limits (an argv or a path too long) lost nothing:
-- it is counted (producer counter `truncated`, as `filtered` is), not a coverage gap. Stores written
-- before this format recorded each report as a `sensor_truncated` gap, which kept health `degraded`
-- within seconds on an ordinary host. Those gaps go; the reports stay as capture_loss events, and
-- their number in the counter `capture_loss:sensor_truncated`.
DELETE FROM coverage_gaps WHERE kind = 'sensor_truncated';
