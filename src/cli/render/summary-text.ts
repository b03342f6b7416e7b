/** What `provd summary` prints: a run's observability summary as labelled lines. */
import type { CountsByName, ObservabilitySummary, TopValues } from '../../telemetry/observability-summary.js';
import type { Style } from '../output/style.js';
import { countList, formatFacts, type Fact } from '../output/facts.js';
import { utcTime } from '../output/time-text.js';
import { plural } from './verify-text.js';

/**
 * One `label  value` line a fact; times in UTC; top lists with their counts; `more` (an agent
 * session's facts) after the run's.
 */
export function formatSummary(
  summary: ObservabilitySummary,
  style: Style,
  more: readonly Fact[] = [],
): string {
  const { events, tool_calls: calls, graph, coverage } = summary;
  const verify = graph.last_verify;
  const facts: Fact[] = [
    ['run', summary.run_id],
    ['first seen', `${utcTime(summary.first_seen)} UTC`],
    [
      'events',
      `${events.total}` +
        (summary.span.first_event === null
          ? ''
          : `, ${utcTime(summary.span.first_event)} .. ${utcTime(summary.span.last_event)} UTC`),
    ],
    ['  by type', counts(events.by_type)],
    ['  by evidence', counts(events.by_evidence_level)],
    ['tool calls', `${calls.recorded} recorded${status(calls.by_status)}, ${calls.bound} bound`],
    ['bindings', String(summary.bindings)],
    [
      'processes',
      `${summary.processes.distinct} distinct, ${summary.processes.execs} ${plural(summary.processes.execs, 'exec')}`,
    ],
    ['files', top(summary.files)],
    ...loaderLine(events.loader_locale_opens, more.length > 0),
    ['destinations', top(summary.network_destinations)],
    ['dns names', top(summary.dns_names)],
    [
      'coverage gaps',
      `${coverage.run_gaps} in the run, ${coverage.host_gaps_in_span} on the host during its events`,
    ],
    [
      'graph',
      `${graph.objects} objects, ${graph.event_batches} event ${graph.event_batches === 1 ? 'batch' : 'batches'}`,
    ],
    [
      'checkpoint',
      graph.last_checkpoint === null
        ? 'none yet'
        : `#${graph.last_checkpoint.index} ${graph.last_checkpoint.hash}`,
    ],
    [
      'last verify',
      verify === null
        ? 'never'
        : `${verify.status} (${verify.error_count} errors, ` +
          `${verify.warning_count} warnings) at ${utcTime(verify.verified_at)} UTC`,
    ],
    ...more,
  ];
  return formatFacts(facts, style);
}

/**
 * `6 loader and locale opens (provd timeline --all lists them)` under the files, left out of them;
 * none for none, nor for an agent session, whose facts count its own (`folded`).
 */
function loaderLine(count: number, session: boolean): Fact[] {
  if (count === 0 || session) return [];
  return [
    ['  left out', `${count} loader and locale ${plural(count, 'open')} (provd timeline --all lists them)`],
  ];
}

/** `execve 3, secret_path 2`, or `-`. */
function counts(by: CountsByName): string {
  return countList(Object.entries(by));
}

function status(by: CountsByName): string {
  const text = counts(by);
  return text === '-' ? '' : ` (${text})`;
}

/** `2 distinct: /root/.aws/credentials (1), /root/.ssh/id_rsa (1)`. */
function top(values: TopValues): string {
  if (values.distinct === 0) return '0';
  const listed = values.top.map((value) => `${value.value} (${value.events})`).join(', ');
  return `${values.distinct} distinct: ${listed}`;
}
