/** Counts what one batch did per producer, as increments for the store's producer counters. */
import type { RejectionCode } from '../model/event.js';
import type { CounterDelta } from '../telemetry/counter-delta.js';
import { unknownSource } from '../telemetry/unknown-source.js';

const recentRows = 4;

/** Accumulates counter increments keyed by source and counter name. */
export class ProducerTally {
  private readonly counts = new Map<string, CounterDelta>();
  /** The rows counted last, tried before the map: a slice counts the same few per event. */
  private readonly recent: CounterDelta[] = [];

  count(source: string, counter: string, value = 1): this {
    for (const row of this.recent) {
      if (row.source === source && row.counter === counter) {
        row.value += value;
        return this;
      }
    }
    const key = `${source}\u0000${counter}`;
    let row = this.counts.get(key);
    if (row === undefined) this.counts.set(key, (row = { source, counter, value }));
    else row.value += value;
    if (this.recent.length === recentRows) this.recent.pop();
    this.recent.unshift(row);
    return this;
  }

  /** Counts rejected lines as `invalid`, and under `invalid:<code>` by their code. */
  rejections(byCode: Partial<Record<RejectionCode, number>>): this {
    for (const [code, count] of Object.entries(byCode)) {
      this.count(unknownSource, 'invalid', count);
      this.count(unknownSource, `invalid:${code}`, count);
    }
    return this;
  }

  list(): CounterDelta[] {
    return [...this.counts.values()];
  }
}
