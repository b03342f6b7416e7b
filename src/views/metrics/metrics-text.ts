/**
 * GET /metrics's exposition: the store's facts of one scrape, what ingest holds in memory and the
 * sensor's capability report, as Prometheus families. Names follow Prometheus practice: `provd_`
 * prefix, base units (bytes), counters end in `_total`. docs/operations.md lists them.
 */
import type { CaptureReport } from '../../sensor/sensor.js';
import type { IngestQueueState } from '../../telemetry/producer-health.route.js';
import { unknownSource } from '../../telemetry/unknown-source.js';
import type { MetricsFacts } from './metrics-facts.sql.js';
import { PrometheusText, type Labels } from './prometheus-text.js';

type Samples = (readonly [Labels, number])[];

/** The exposition; `facts` is null when the store did not answer (then `provd_store_up` is 0). */
export function metricsText(
  facts: MetricsFacts | null,
  ingest: IngestQueueState,
  capture: CaptureReport,
): string {
  const text = new PrometheusText()
    .family('provd_up', 'gauge', 'Whether the daemon answers: 1 on every scrape it answers.', [[{}, 1]])
    .family(
      'provd_store_up',
      'gauge',
      'Whether the store answered this scrape (0: store families are absent).',
      [[{}, facts === null ? 0 : 1]],
    )
    .family(
      'provd_ingest_backpressure_refusals_total',
      'counter',
      'Ingest requests answered 429 (queues full) since the daemon started.',
      [[{}, ingest.refusedRequests]],
    )
    .family('provd_ingest_in_flight_bytes', 'gauge', 'Ingest body bytes held in memory, not yet committed.', [
      [{}, ingest.inFlightBytes],
    ]);
  if (facts !== null) storeFamilies(text, facts);
  sensorFamilies(text, capture);
  return text.text();
}

function storeFamilies(text: PrometheusText, facts: MetricsFacts): void {
  const accepted: Samples = [];
  const other: Samples = [];
  const rejected: Samples = [];
  const spool = new Map<string, number>();
  const host = new Map<string, number>();
  for (const { source, counter, value } of facts.counters) {
    if (source === unknownSource) {
      // `invalid` is the sum of the `invalid:<code>` counters beside it
      if (counter.startsWith('invalid:'))
        rejected.push([{ reason: counter.slice('invalid:'.length) }, value]);
    } else if (source === 'spool') spool.set(counter, value);
    else if (source === 'host') host.set(counter, value);
    else if (counter === 'accepted') accepted.push([{ source }, value]);
    else other.push([{ source, counter }, value]);
  }
  text
    .family('provd_events_accepted_total', 'counter', 'Events stored, by producer source.', accepted)
    .family(
      'provd_source_events_total',
      'counter',
      'Other per-source producer counters (spooled, no_capture_time, ...).',
      other,
    )
    .family(
      'provd_events_rejected_total',
      'counter',
      'Input lines rejected and not stored, by rejection code (a rejected line has no trusted source).',
      rejected,
    )
    .family(
      'provd_spool_overflowed_events_total',
      'counter',
      'Spooled events dropped because the spool bounds were reached before their TTL.',
      [[{}, spool.get('overflowed') ?? 0]],
    )
    .family(
      'provd_spool_unclaimed_events_total',
      'counter',
      'Spooled events no binding claimed within the TTL, kept as uncorrelated host events (not a drop).',
      [[{}, spool.get('unclaimed') ?? 0]],
    )
    .family(
      'provd_spool_settled_late_events_total',
      'counter',
      'Spooled events a later binding attributed to a run.',
      [[{}, spool.get('correlated') ?? 0]],
    )
    .family(
      'provd_host_events_retained_total',
      'counter',
      'Host events (bound to no run) removed by host retention, each removal recorded in the signed host chain.',
      [[{}, host.get('retained_events') ?? 0]],
    )
    .family(
      'provd_host_batches_retained_total',
      'counter',
      'Host event batches (digests) removed whole by host retention.',
      [[{}, host.get('retained_batches') ?? 0]],
    )
    .family(
      'provd_host_retention_refused_total',
      'counter',
      'Host batches retention chose but kept, because their events no longer hash to their signed root (tampering: see verify-host).',
      [[{}, host.get('retention_refused') ?? 0]],
    )
    .family('provd_spool_events', 'gauge', 'Events waiting in the spool for a binding.', [
      [{}, facts.spool.events],
    ])
    .family('provd_spool_bytes', 'gauge', 'Bytes of the events waiting in the spool.', [
      [{}, facts.spool.bytes],
    ])
    .family(
      'provd_coverage_gaps_total',
      'counter',
      'Recorded coverage gaps (capture loss), by kind.',
      facts.gaps.map(({ kind, gaps }) => [{ kind }, gaps] as const),
    )
    .family(
      'provd_coverage_gap_lost_events_total',
      'counter',
      'Events the recorded coverage gaps say were lost, by kind (where the producer said).',
      facts.gaps.map(({ kind, lost_events }) => [{ kind }, lost_events] as const),
    )
    .family(
      'provd_risks_total',
      'counter',
      'Stored policy decisions on events and on agent tool calls (risks), by decision and rule.',
      facts.risks.map(({ decision, rule_id, risks }) => [{ decision, rule_id }, risks] as const),
    )
    .family(
      'provd_risk_advisories_total',
      'counter',
      'Stored decisions carrying a detect-only advisory, by the advising rule.',
      facts.advisories.map(({ rule_id, risks }) => [{ rule_id }, risks] as const),
    )
    .family(
      'provd_store_bytes',
      'gauge',
      'Bytes on disk of the database, by file (the database and its write-ahead log).',
      [
        [{ file: 'database' }, facts.store.database_bytes],
        [{ file: 'wal' }, facts.store.wal_bytes],
      ],
    );
}

function sensorFamilies(text: PrometheusText, capture: CaptureReport): void {
  const probes = Object.entries(capture.probes);
  const kernel: Samples = [];
  for (const [probe, report] of probes)
    for (const reason of ['ring_full', 'pending_full', 'missed'] as const)
      kernel.push([{ probe, reason }, report[reason]]);
  const reassembly = capture.tls.reassembly;
  text
    .family(
      'provd_sensor_status',
      'gauge',
      'The eBPF sensor status: 1 for the current one (running, degraded, off, unavailable, failed).',
      [[{ status: capture.status }, 1]],
    )
    .family(
      'provd_sensor_records_total',
      'counter',
      'Records the sensor read from the kernel since the daemon started.',
      [[{}, capture.records]],
    )
    .family(
      'provd_sensor_dropped_records_total',
      'counter',
      'Sensor records lost between the kernel and the store, by where.',
      Object.entries(capture.dropped).map(([where, count]) => [{ where }, count] as const),
    )
    .family(
      'provd_sensor_kernel_dropped_records_total',
      'counter',
      'Records lost in the kernel, by probe and reason (ring buffer full, too many pending, programs skipped).',
      kernel,
    )
    .family(
      'provd_sensor_truncated_records_total',
      'counter',
      'Records sent with a bounded field cut, by probe.',
      probes.map(([probe, report]) => [{ probe }, report.truncated] as const),
    )
    .family(
      'provd_tls_reassembly_evictions_total',
      'counter',
      'Evictions from TLS plaintext reassembly (it holds bounded bytes and streams): what was evicted is not captured.',
      [[{}, reassembly?.evicted ?? 0]],
    )
    .family(
      'provd_tls_unparsed_messages_total',
      'counter',
      'TLS plaintext captured but not readable as HTTP/1.x or HTTP/2 (another protocol inside TLS): counted, not lost.',
      [[{}, reassembly?.unparsed ?? 0]],
    )
    .family(
      'provd_tls_uncaptured_messages_total',
      'counter',
      'TLS messages lost because their plaintext was not all captured (the kernel ring dropped chunks of it).',
      [[{}, reassembly?.uncaptured ?? 0]],
    )
    .family('provd_tls_pending_bytes', 'gauge', 'TLS plaintext bytes held for reassembly.', [
      [{}, reassembly?.pendingBytes ?? 0],
    ]);
}
