/** What `provd signals` prints: a run's behaviour, cost, quality and security signals, as labelled lines. */
import type { GapCounts } from '../../security/signals/security-signals.js';
import type { UsageSignals } from '../../security/signals/cost-signals.js';
import type { Signals } from '../../security/signals/signals.js';
import { countList, formatFacts, type Fact } from '../output/facts.js';
import type { Style } from '../output/style.js';
import { utcTime } from '../output/time-text.js';
import { plural } from './verify-text.js';

/** One section a signal group; each value says what it counts. `--json` keeps every basis. */
export function formatSignals(signals: Signals, style: Style): string {
  const { span, behaviour, cost, quality, security } = signals;
  const { binaries, fan_out: fan } = behaviour;
  const calls = quality.tool_calls;
  const exits = quality.process_exits;
  const risks = security.risks;
  const facts: Fact[] = [
    ['run', signals.run_id],
    [
      'events span',
      span.first_event === null
        ? 'no events'
        : `${utcTime(span.first_event)} .. ${utcTime(span.last_event)} UTC (${span.seconds} s)`,
    ],
    ['behaviour', null],
    [
      '  events',
      `${behaviour.events}${rate(behaviour.per_minute)}; peak ${behaviour.peak_10s.events} in the 10 s from ${utcTime(behaviour.peak_10s.start)}`,
    ],
    ['  by type', countList(behaviour.by_type.map((row) => [row.type, row.events]))],
    [
      '  binaries',
      `${binaries.execs} ${plural(binaries.execs, 'exec')} of ${binaries.distinct} distinct${list(binaries.top.map((binary) => `${binary.path} (${binary.execs}${binary.new ? ', new' : ''})`))}`,
    ],
    [
      '  new binaries',
      `${binaries.new.count} of ${binaries.new.compared} compared with ${binaries.new.earlier_runs} earlier ${plural(binaries.new.earlier_runs, 'run')}${list(binaries.new.binaries.map((binary) => binary.path))}`,
    ],
    [
      '  fan-out',
      `${fan.processes.value} processes, at most ${fan.max_children.value} children${fan.max_children.parent_pid === null ? '' : ` (of pid ${fan.max_children.parent_pid})`}, ${fan.files.value} files, ${fan.destinations.value} destinations, ${fan.dns_names.value} DNS names`,
    ],
    [`cost (estimate in ${cost.prices.currency}, list prices as of ${cost.prices.as_of})`, null],
    ['  observed', usage(cost.observed)],
    ['  asserted', usage(cost.asserted)],
    ['quality', null],
    [
      '  tool calls',
      `${calls.recorded} recorded${status(calls.by_status)}; ${calls.failures.value} failed, ${calls.timeouts.value} timed out, ${calls.non_zero_exits.value} non-zero exits, ${calls.retries.value} retries`,
    ],
    [
      '  process exits',
      `${exits.exits}; ${exits.non_zero.value} non-zero, ${exits.signaled.value} signaled, ${exits.without_code} without a code`,
    ],
    ['security', null],
    [
      '  risks',
      `${risks.total}${risks.total === 0 ? '' : `: ${countList(risks.by_severity.map((row) => [row.severity, row.risks]))}; ${countList(risks.by_decision.map((row) => [row.decision, row.risks]))}`}`,
    ],
    ['  by rule', countList(risks.by_rule.map((row) => [row.rule_id, row.risks]))],
    [
      '  coverage',
      `${gaps(security.coverage.run)} in the run; ${gaps(security.coverage.unattributed_in_span)} on the host during its events`,
    ],
  ];
  return formatFacts(facts, style);
}

function rate(perMinute: number | null): string {
  return perMinute === null ? '' : `, ${perMinute} a minute`;
}

function list(items: readonly string[]): string {
  return items.length === 0 ? '' : `: ${items.join(', ')}`;
}

function status(byStatus: readonly { status: string; tool_calls: number }[]): string {
  return byStatus.length === 0 ? '' : ` (${countList(byStatus.map((row) => [row.status, row.tool_calls]))})`;
}

/** `3 requests, 1200 input / 300 output tokens, $0.0123 (claude-sonnet 3)`. */
function usage(signals: UsageSignals): string {
  const { totals } = signals;
  const models = countList(signals.models.map((model) => [model.model ?? '?', model.requests]));
  const unpriced = totals.unpriced_requests === 0 ? '' : `, ${totals.unpriced_requests} unpriced`;
  return (
    `${totals.requests} ${plural(totals.requests, 'request')}, ${totals.input_tokens} input / ` +
    `${totals.output_tokens} output tokens, $${totals.estimated_price_usd}${unpriced}` +
    (models === '-' ? '' : ` (${models})`)
  );
}

/** `2 gaps (17 events lost: kernel_loss 2)`. */
function gaps(counts: GapCounts): string {
  if (counts.gaps === 0) return '0 gaps';
  const unknown = counts.unknown_loss === 0 ? '' : `, ${counts.unknown_loss} of unknown size`;
  const kinds = countList(counts.by_kind.map((row) => [row.kind, row.gaps]));
  return `${counts.gaps} ${plural(counts.gaps, 'gap')} (${counts.lost_events} events lost${unknown}: ${kinds})`;
}
