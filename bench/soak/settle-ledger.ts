/**
 * The final count of a ledger: what the daemon stored against what it acknowledged. Spooled events
 * reach their run a moment after their binding, so a count that still misses events is taken again
 * for a while before the loss is final.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventLedger, LedgerCheck } from './event-ledger.js';
import type { PhaseTally } from './phase-tally.js';
import type { SoakApi } from './soak-api.js';

const settleMs = 30_000;

/** Counts, settles, and puts acknowledged, lost and duplicated into the phase's figures. */
export async function settleLedger(
  api: SoakApi,
  ledger: EventLedger,
  tally: PhaseTally,
  what: string,
): Promise<LedgerCheck> {
  const until = Date.now() + settleMs;
  let check = await ledger.check(api);
  while (check.lost > 0 && Date.now() < until) {
    await sleep(1_000);
    check = await ledger.check(api);
  }
  tally.figures.acknowledged += check.acknowledged;
  tally.figures.lost += check.lost;
  tally.figures.duplicated += check.duplicated;
  if (check.lost > 0)
    tally.fail(
      null,
      'lost',
      `${what}: ${check.lost} of ${check.acknowledged} acknowledged events are not stored`,
    );
  if (check.duplicated > 0)
    tally.fail(null, 'duplicated', `${what}: ${check.duplicated} extra copies of stored events`);
  if (check.shortBatches > 0)
    tally.fail(
      null,
      'short_batch',
      `${what}: ${check.shortBatches} batches of valid events were not accepted whole`,
    );
  if (check.unacknowledgedStored > 0)
    tally.note(
      'unacknowledged_stored',
      `${what}: ${check.unacknowledgedStored} events stored whose request was never answered`,
    );
  return check;
}
