/**
 * What every signal carries so it can be explained: the tables it was computed from, how, and the
 * events or tool calls it rests on (the first ones, bounded). An event id leads on through
 * `GET /v1/graph/explain?event=ID`, a tool call through `?tool-call=ID`.
 */
import type { Count } from '../../shared/schema/wire-types.js';

/** The tables a signal is read from (the `run_*` ones are folded from the run's events). */
export type BasisTable =
  | 'windows'
  | 'run_signal_values'
  | 'run_llm_usage'
  | 'timeline_processes'
  | 'tool_calls'
  | 'coverage_gaps'
  | 'runs';

/** A signal's basis. */
export interface SignalBasis {
  tables: BasisTable[];
  /** What was computed over them, in words. */
  method: string;
  /** Events it rests on, at most `bounds.basis_ids`: the first of each counted value, the most frequent first. */
  event_ids: string[];
  /** Tool calls it rests on, at most `bounds.basis_ids`, the earliest first. */
  tool_call_ids: string[];
}

/** A count with its basis. */
export interface CountSignal {
  value: Count;
  basis: SignalBasis;
}

/** How much of each list an answer shows. */
export interface SignalBounds {
  /** Most items of a list (binaries, exit codes, rules, models, retried commands, gap kinds). */
  list_items: Count;
  /** Most ids of a basis. */
  basis_ids: Count;
  /** Most of the run's binaries compared with earlier runs: the most executed. */
  compared_binaries: Count;
}

/** The bounds every answer applies (and states in `bounds`). */
export const signalBounds = {
  list_items: 20,
  basis_ids: 10,
  compared_binaries: 1000,
} as const satisfies SignalBounds;

/** A basis from its parts; ids beyond the bound are dropped here. */
export function basis(
  tables: BasisTable[],
  method: string,
  ids: { events?: readonly string[]; toolCalls?: readonly string[] } = {},
): SignalBasis {
  return {
    tables,
    method,
    event_ids: (ids.events ?? []).slice(0, signalBounds.basis_ids),
    tool_call_ids: (ids.toolCalls ?? []).slice(0, signalBounds.basis_ids),
  };
}
