/**
 * A seeded pseudo-random source (sfc32), so a soak run's requests are reproducible from its seed:
 * each worker forks its own stream by label, and the order in which workers interleave does not
 * change what any one of them sends.
 */

/** A deterministic random stream. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, label = '') {
    // mix the seed and the label into four words, then discard the first outputs (sfc32's warm-up)
    let h = (seed ^ 0x9e3779b9) >>> 0;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x85ebca6b) >>> 0;
    this.a = h;
    this.b = Math.imul(h ^ 0xdeadbeef, 0xc2b2ae35) >>> 0;
    this.c = (seed * 2654435761) >>> 0;
    this.d = 1;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A stream of its own for `label`, independent of how much of this one was used. */
  fork(label: string): Rng {
    return new Rng(this.c ^ this.a, label);
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** One key of `weights`, drawn in proportion to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let left = this.next() * entries.reduce((sum, [, w]) => sum + w, 0);
    for (const [key, weight] of entries) {
      left -= weight;
      if (left < 0) return key;
    }
    return entries[entries.length - 1]![0];
  }
}
