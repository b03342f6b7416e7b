/**
 * What one soak phase counts: requests and their answers by status, 5xx expected and not, the
 * latency of well-formed requests and those not answered in time, events acknowledged, lost and
 * stored twice, and the daemon's peak memory. Every failure goes to the run's failure log with the
 * request that caused it.
 */
import type { FailureLog } from './failure-log.js';
import type { SoakOutcome, SoakRequest } from './soak-client.js';
import type { SoakDaemon } from './soak-daemon.js';

/** How long a well-formed request may wait for its answer before it counts as unanswered. */
export const answerDeadlineMs = 5_000;

/** The figures of one phase, as printed. */
export interface PhaseFigures {
  seconds: number;
  requests: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  /** Requests that got no answer at all (closed, refused, timed out), well-formed or not. */
  no_answer: number;
  /** 5xx answers the phase did not expect: each one fails the run. */
  unexpected_5xx: number;
  /** 503 `unavailable` answers where the phase expects them (a full disk). */
  expected_503: number;
  well_formed: number;
  /** Of the well-formed requests, those answered after the deadline or never: each fails the run. */
  well_formed_late: number;
  well_formed_p50_ms: number | null;
  well_formed_p99_ms: number | null;
  /** Answers whose body does not match openapi.json: each fails the run. */
  contract_mismatch: number;
  acknowledged: number;
  lost: number;
  duplicated: number;
  daemon_crashes: number;
  rss_peak_bytes: number | null;
  failures: number;
  /** Observations logged for a person to judge, failing nothing. */
  notes: number;
}

/** What the caller knows of a request it sent. */
export interface Sent {
  request: SoakRequest;
  outcome: SoakOutcome;
  /** Its parameters and body are valid: it must be answered within the deadline, and never 4xx for its form. */
  wellFormed: boolean;
  /** Where it came from, to reproduce it (`fuzz seed=7 worker=2 request=311`). */
  origin: string;
  /** A 503 `unavailable` is expected here (the disk is full). */
  mayBeUnavailable?: boolean;
}

/** Counts one phase. */
export class PhaseTally {
  private readonly started = Date.now();
  private readonly wellFormedMs: number[] = [];
  readonly figures: PhaseFigures = {
    seconds: 0,
    requests: 0,
    statuses: {},
    no_answer: 0,
    unexpected_5xx: 0,
    expected_503: 0,
    well_formed: 0,
    well_formed_late: 0,
    well_formed_p50_ms: null,
    well_formed_p99_ms: null,
    contract_mismatch: 0,
    acknowledged: 0,
    lost: 0,
    duplicated: 0,
    daemon_crashes: 0,
    rss_peak_bytes: null,
    failures: 0,
    notes: 0,
  };

  /** The daemon whose memory, crashes and error log are this phase's. */
  daemon: SoakDaemon | undefined;

  constructor(
    readonly phase: string,
    private readonly failures: FailureLog,
  ) {}

  /** Latencies of the well-formed requests so far, in ms. */
  get latencies(): readonly number[] {
    return this.wellFormedMs;
  }

  /** Counts a request and its outcome; returns the answer's status, or 0 without an answer. */
  count(sent: Sent): number {
    const { outcome, wellFormed } = sent;
    const figures = this.figures;
    figures.requests++;
    this.failures.journal(this.phase, sent);
    if (wellFormed) {
      figures.well_formed++;
      this.wellFormedMs.push(outcome.ms);
    }
    if (!('answer' in outcome)) {
      figures.no_answer++;
      if (wellFormed) this.late(sent, `no answer: ${outcome.error}`);
      return 0;
    }
    const { status } = outcome.answer;
    figures.statuses[status] = (figures.statuses[status] ?? 0) + 1;
    if (wellFormed && outcome.ms > answerDeadlineMs)
      this.late(sent, `answered ${status} after ${Math.round(outcome.ms)} ms`);
    if (status >= 500) {
      if (status === 503 && sent.mayBeUnavailable === true && saysUnavailable(outcome.answer.body))
        figures.expected_503++;
      else {
        figures.unexpected_5xx++;
        this.fail(sent, 'unexpected_5xx', `${status} ${outcome.answer.body.subarray(0, 300).toString()}`);
      }
    }
    return status;
  }

  /** Records a failure that is not about one answer's status (a loss, a contract breach). */
  fail(sent: Sent | null, kind: string, detail: string): void {
    this.figures.failures++;
    this.failures.add(this.phase, kind, detail, sent);
  }

  /** Logs an observation about no single request. */
  note(kind: string, detail: string): void {
    this.figures.notes++;
    this.failures.note(this.phase, kind, detail, null);
  }

  /** Counts a problem with an answer: a contract breach fails the run, a note is only logged. */
  problem(sent: Sent, kind: string, detail: string, isNote: boolean): void {
    if (isNote) {
      this.figures.notes++;
      this.failures.note(this.phase, kind, detail, sent);
      return;
    }
    if (kind === 'contract_mismatch') this.figures.contract_mismatch++;
    this.fail(sent, kind, detail);
  }

  /** Closes the phase: its duration, latency percentiles and the daemon's peak memory. */
  finish(rssPeakBytes: number | null, crashes: number): PhaseFigures {
    Object.assign(this.figures, {
      seconds: Math.round((Date.now() - this.started) / 1000),
      well_formed_p50_ms: percentileMs(this.wellFormedMs, 0.5),
      well_formed_p99_ms: percentileMs(this.wellFormedMs, 0.99),
      rss_peak_bytes: rssPeakBytes,
      daemon_crashes: crashes,
    });
    if (crashes > 0) this.fail(null, 'daemon_crash', `the daemon exited on its own ${crashes} times`);
    return this.figures;
  }

  private late(sent: Sent, detail: string): void {
    this.figures.well_formed_late++;
    this.fail(sent, 'well_formed_unanswered', detail);
  }
}

/** The `q` quantile of `values` (nearest rank), rounded to a millisecond; null without values. */
export function percentileMs(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
}

/**
 * True for the documented 503 bodies: an error `unavailable`, or health's and verify's own bodies
 * with status `unavailable` (spec: Errors).
 */
function saysUnavailable(body: Buffer): boolean {
  if (errorCode(body) === 'unavailable') return true;
  try {
    return (JSON.parse(body.toString()) as { status?: unknown }).status === 'unavailable';
  } catch {
    return false;
  }
}

/** The `error.code` of a JSON error body, or undefined. */
export function errorCode(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString()) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string' ? parsed.error.code : undefined;
  } catch {
    return undefined;
  }
}
