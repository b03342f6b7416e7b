-- 016: TLS plaintext the sensor captured but could not read as HTTP/1.x or HTTP/2 (another
-- protocol inside TLS) lost nothing: it is counted (producer counter `tls_unparsed_messages`), not
-- a coverage gap. Stores written before this format recorded each report as a `sensor_tls_unparsed`
-- gap of one "lost" event, which kept health `degraded` within a minute of a normal start. Those
-- gaps go, their number into the counter; the reports stay as capture_loss events. (A message whose
-- chunks the kernel ring dropped was reported the same way then; that drop is also in the probe's
-- own `sensor_ring_full` gap, which stays.)
INSERT INTO producer_counters
  SELECT source, 'tls_unparsed_messages', coalesce(sum(lost_events), count(*)), max(recorded_at_ns)
  FROM coverage_gaps WHERE kind = 'sensor_tls_unparsed' GROUP BY source
  ON CONFLICT (source, counter) DO UPDATE SET value = value + excluded.value;
DELETE FROM coverage_gaps WHERE kind = 'sensor_tls_unparsed';
