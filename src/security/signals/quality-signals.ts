/**
 * The quality signals of GET /v1/signals: how a run's tool calls ended, which it repeated, and how
 * its processes exited, as the CLI reads them and the store writes them (quality-signals.sql.ts,
 * retries.sql.ts): the wire contract alone, with no store code.
 */
import type { ToolCallStatus } from '../../provenance/record/record-answer.js';
import type { Count, Integer } from '../../shared/schema/wire-types.js';
import type { CountSignal, SignalBasis } from './signal-basis.js';

/** How well the run's work went. */
export interface QualitySignals {
  tool_calls: ToolCallQuality;
  process_exits: ExitQuality;
}

/** The run's tool calls recorded with POST /v1/record. */
export interface ToolCallQuality {
  recorded: Count;
  /** Every status the run's tool calls have, the most first. */
  by_status: { status: ToolCallStatus; tool_calls: Count }[];
  /** Status `failed` (ran, then exited non-zero or was ended by a signal) or `error` (could not start). */
  failures: CountSignal;
  /** Status `timeout`: killed at its timeout_ms. */
  timeouts: CountSignal;
  /** An exit code other than 0 in the record. */
  non_zero_exits: CountSignal;
  retries: Retries;
}

/** How the run's processes exited (process_exit events). */
export interface ExitQuality {
  exits: Count;
  /** Exits with a code other than 0. */
  non_zero: CountSignal;
  /** Exits that name the signal that ended the process. */
  signaled: CountSignal;
  /** Exits that carry no exit code. */
  without_code: Count;
  /** Exits by code, the most frequent first, at most `bounds.list_items`. */
  by_code: { exit_code: Integer; exits: Count; first_event_id: string }[];
  basis: SignalBasis;
}

/** The run's repeated tool calls. */
export interface Retries {
  /** Tool calls that repeat an earlier one: attempts beyond the first, over every repeated command. */
  value: Count;
  /** Commands recorded more than once, the most attempts first, at most `bounds.list_items`. */
  commands: RetriedCommand[];
  basis: SignalBasis;
}

/** One command the run recorded more than once. */
export interface RetriedCommand {
  command: string;
  args: string[];
  attempts: Count;
  /** How the latest attempt ended. */
  last_status: ToolCallStatus;
  /** The attempts, the earliest first, at most `bounds.basis_ids`. */
  tool_call_ids: string[];
}
