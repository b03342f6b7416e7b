/**
 * GET /v1/graph/verify's schedule on the store thread: a run's answer is kept (for the
 * `keptRuns` runs asked last) while no write that may change evidence has ended since its
 * snapshot (the write queue's `changes`), so a run verified in a loop, or by many clients at once,
 * is verified once per change. Concurrent calls for one run share one verification, and runs are
 * verified one at a time: a flood of calls over many big runs costs the store one verification's
 * memory and threads at a time, never one per call.
 */
import type { StoreConnection } from '../store/store-connection.js';
import type { EventRecheck } from './verify-events.sql.js';
import { VerifyFlight, type Verified } from './verify-flight.js';
import type { VerifyResult } from './verify-result.js';
import { verifyRun, type RunCheck } from './verify.sql.js';

/** What the verifier needs from the store module. */
export interface RunVerifierParts {
  snapshot: <T>(body: (connection: StoreConnection) => Promise<T>) => Promise<T>;
  /** The write queue's `changes`: the writes that may have changed the evidence, ended so far. */
  changes: () => number;
  /** Waits for the sealing round, so what is read next is sealed up to the moment it was asked. */
  sealedFirst: () => Promise<void>;
  recheck: EventRecheck;
  runChecks: readonly RunCheck[];
}

/**
 * Fault injection for tests, never to be set in production (PROVD_FAULT_VERIFY_PAUSE_MS): a pause
 * between the sealing round and the snapshot, so a test can have a commit end inside it.
 */
const verifyPauseMs = Number(process.env['PROVD_FAULT_VERIFY_PAUSE_MS'] ?? 0) || 0;

/** Runs whose last answer is kept (each is one VerifyResult, at most 100 issues of a kind listed). */
const keptRuns = 64;

export class RunVerifier {
  /** By run, the least recently asked first. */
  private readonly flights = new Map<string, VerifyFlight<VerifyResult>>();
  /** The verification running last: the next one starts after it. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly parts: RunVerifierParts) {}

  /** The run verified, or its kept answer when nothing changed since; throws run_not_found. */
  verify(runId: string): Promise<VerifyResult> {
    let flight = this.flights.get(runId);
    if (flight === undefined)
      flight = new VerifyFlight(
        () => String(this.parts.changes()),
        () => this.oneAtATime(() => this.run(runId)),
      );
    else this.flights.delete(runId);
    this.flights.set(runId, flight);
    for (const [run, other] of this.flights) {
      if (this.flights.size <= keptRuns) break;
      if (!other.busy) this.flights.delete(run);
    }
    return flight.answer();
  }

  private async run(runId: string): Promise<Verified<VerifyResult>> {
    const sealedAtNs = BigInt(Date.now()) * 1_000_000n;
    await this.parts.sealedFirst();
    if (verifyPauseMs > 0) await new Promise((resolve) => setTimeout(resolve, verifyPauseMs));
    // after the seal (its own write counts): an answer is kept under what its snapshot saw
    const version = String(this.parts.changes());
    // one snapshot: a round or a commit between two of its reads would look like tampering
    const result = await this.parts.snapshot((connection) =>
      verifyRun(connection, { run: runId }, this.parts.recheck, this.parts.runChecks, sealedAtNs),
    );
    return { version, result };
  }

  /** Runs `verify` after the verification before it has ended. */
  private oneAtATime<T>(verify: () => Promise<T>): Promise<T> {
    const result = this.tail.then(verify);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
