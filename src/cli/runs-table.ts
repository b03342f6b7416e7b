/** The table `provd runs` prints: one run a line, columns padded, times to the second. */
import type { RunSummary } from '../telemetry/run-list.js';
import { formatTable } from './output/text-table.js';

const header = [
  'RUN',
  'FIRST SEEN',
  'BINDINGS',
  'TOOL CALLS',
  'DENIED',
  'EVENTS',
  'KERNEL',
  'RISKY',
  'EVENTS FROM',
  'EVENTS TO',
];
// the count columns line up on the right
const rightAligned = new Set([2, 3, 4, 5, 6, 7]);

/** The runs as a text table with a header line; a sentence when there are none. */
export function formatRunsTable(runs: readonly RunSummary[]): string {
  if (runs.length === 0) return 'no runs are known yet: a run is known once a binding names it\n';
  const rows = runs.map((run) => [
    run.run_id,
    toSecond(run.first_seen),
    String(run.bindings.count),
    String(toolCalls(run)),
    String(run.tool_calls.denied),
    String(run.events.count),
    String(run.events.kernel_correlated),
    String(run.events.risky),
    toSecond(run.events.from),
    toSecond(run.events.to),
  ]);
  return formatTable(header, rows, rightAligned);
}

/** The tool calls a run names: those its context asserts, or more when bindings name others. */
export function toolCalls(run: RunSummary): number {
  return Math.max(run.tool_calls.count, run.bindings.tool_calls);
}

/** An RFC 3339 time without its fraction (`2026-01-01T00:00:03Z`), or `-` for none. */
function toSecond(time: string | null): string {
  return time === null ? '-' : time.replace(/\.\d+Z$/, 'Z');
}
