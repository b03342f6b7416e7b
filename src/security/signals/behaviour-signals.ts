/**
 * The behaviour signals of GET /v1/signals: a run's events by type, its busiest window, the binaries
 * it executed and its fan-out, as the CLI reads them and the store writes them
 * (behaviour-signals.sql.ts, binaries.sql.ts): the wire contract alone, with no store code.
 */
import type { EventType } from '../../model/event.js';
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import type { CountSignal, SignalBasis } from './signal-basis.js';

/** What the run did, how much and how fast. */
export interface BehaviourSignals {
  /** The run's events. */
  events: Count;
  /** Events per minute of the run's span; null when its events share one instant. */
  per_minute: number | null;
  /** Every type the run has events of, the most first. */
  by_type: TypeActivity[];
  /** The 10 s window with the most events (the earliest of equals); start null without events. */
  peak_10s: { events: Count; start: DateTimeText | null; basis: SignalBasis };
  binaries: BinarySignals;
  fan_out: FanOutSignals;
  basis: SignalBasis;
}

/** The events of one type. */
export interface TypeActivity {
  type: EventType;
  events: Count;
  per_minute: number | null;
  /** Its most events in one 10 s window. */
  peak_10s: Count;
}

/** How widely the run spread. */
export interface FanOutSignals {
  /** Distinct processes (tgid, else pid) with events in the run. */
  processes: CountSignal;
  /** The most processes of the run with one parent, and that parent's pid (null without any). */
  max_children: { value: Count; parent_pid: number | null; basis: SignalBasis };
  /** Distinct paths of its file events. */
  files: CountSignal;
  /** Distinct `dst_ip:dst_port` of its connections. */
  destinations: CountSignal;
  /** Distinct names of its DNS queries. */
  dns_names: CountSignal;
}

/** The binaries of a run. */
export interface BinarySignals {
  /** The run's execve events; those that name no path count here, not in `distinct`. */
  execs: Count;
  /** Distinct paths executed. */
  distinct: Count;
  /** The most executed, at most `bounds.list_items`. */
  top: ExecutedBinary[];
  new: NewBinaries;
  basis: SignalBasis;
}

/** One binary and its executions. */
export interface ExecutedBinary {
  path: string;
  execs: Count;
  /** The run's first execve of it. */
  first_event_id: string;
  /** True when no earlier run executed it. */
  new: boolean;
}

/** The run's binaries that no earlier run executed. */
export interface NewBinaries {
  /** Runs the store first saw before this one: what the run is compared with (0: every binary is new). */
  earlier_runs: Count;
  /** Of the run's binaries, how many were compared: the most executed, at most `bounds.compared_binaries`. */
  compared: Count;
  count: Count;
  /** The first executed first, at most `bounds.list_items`. */
  binaries: ExecutedBinary[];
  basis: SignalBasis;
}
