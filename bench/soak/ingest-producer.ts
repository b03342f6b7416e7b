/**
 * Sends a ledger batch the way a producer that must lose nothing does: the same body under the same
 * Idempotency-Key until an answer says it is stored. A 429 waits its Retry-After; a request without
 * an answer (the daemon was killed) or a 503 waits a moment; anything else is counted and resent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventLedger, LedgerBatch } from './event-ledger.js';
import type { PhaseTally } from './phase-tally.js';
import { jsonOf, type SoakApi } from './soak-api.js';

export interface DeliverOptions {
  /** Hold each request to the answer deadline (a phase without kills or a full disk). */
  wellFormed: boolean;
  /** A 503 `unavailable` is expected (the disk is full). */
  mayBeUnavailable?: boolean;
  /** Gives up (returning false) once this says so, leaving the batch unacknowledged. */
  giveUp?: () => boolean;
  /** Called on each 503, with the answer's Retry-After and error message. */
  onUnavailable?: (retryAfter: string | undefined, message: string) => void;
  origin: string;
}

const longestWaitMs = 5_000;

/** Resends `batch` until it is answered 200; true once acknowledged, false when given up. */
export async function deliver(
  api: SoakApi,
  ledger: EventLedger,
  batch: LedgerBatch,
  tally: PhaseTally,
  options: DeliverOptions,
): Promise<boolean> {
  const request = api.postRequest('/v1/telemetry/ingest?format=native', batch.body, 'application/x-ndjson', [
    ['Idempotency-Key', batch.key],
  ]);
  for (let attempt = 1; ; attempt++) {
    if (options.giveUp?.() === true) return false;
    const outcome = await api.send(request, 60_000);
    if ('error' in outcome && outcome.error === 'ECONNREFUSED') {
      // nobody listens (a killed daemon not started yet): no request was made
      await sleep(100);
      continue;
    }
    const status = tally.count({
      request,
      outcome,
      wellFormed: options.wellFormed,
      origin: `${options.origin} batch=${batch.key} attempt=${attempt}`,
      ...(options.mayBeUnavailable === true && { mayBeUnavailable: true }),
    });
    const reply = jsonOf(outcome);
    if (status === 200 && reply !== undefined) {
      ledger.acknowledge(batch, reply.body['accepted'] as number);
      return true;
    }
    if (status >= 400 && status < 500 && status !== 429) {
      // a valid batch refused (a key the daemon says was reused with another body): a producer is stuck
      tally.fail(
        null,
        'batch_refused',
        `${batch.key}: ${status} ${JSON.stringify(reply?.body ?? null).slice(0, 300)}`,
      );
      return false;
    }
    if (status === 429) {
      const seconds = Number(reply?.headers.get('retry-after') ?? 1);
      await sleep(Math.min(longestWaitMs, Math.max(100, seconds * 1000)));
    } else if (status === 503) {
      const error = reply?.body['error'] as { message?: string } | undefined;
      options.onUnavailable?.(reply?.headers.get('retry-after'), error?.message ?? '');
      await sleep(500);
    } else await sleep(status === 0 ? 100 : 250);
  }
}
