/**
 * What a loss report of the sensor sends: what its counters gained since the last report. A count
 * of what `--capture agents` left out (`filtered`) is no loss, and it moves on any host that is not
 * idle: sent alone every 30 s it was a normalize task, a commit and a host chain entry each time, and
 * eight host events a report kept for good: a fifth of an idle daemon's CPU. So alone it waits until it
 * is due (filteredReportMs); with any other news, and at a stop, it goes along.
 */
import type { Loss, LossKind } from './loss-records.js';

/** How long a count of left-out events alone waits before it is sent (producer counter `filtered`). */
export const filteredReportMs = 300_000;

/**
 * The losses to send: `oneOff` ones, and what each `kind probe` total in `current` gained over
 * `reported`; none when the only news is `filtered` and `filteredDue` is false.
 */
export function lossNews(
  current: ReadonlyMap<string, number>,
  reported: ReadonlyMap<string, number>,
  oneOff: readonly Loss[],
  filteredDue: boolean,
): Loss[] {
  const losses: Loss[] = [...oneOff];
  for (const [key, total] of current) {
    const count = total - (reported.get(key) ?? 0);
    const [kind, probe] = key.split(' ') as [LossKind, string];
    if (count > 0) losses.push({ kind, probe, count });
  }
  return filteredDue || losses.some((loss) => loss.kind !== 'filtered') ? losses : [];
}
