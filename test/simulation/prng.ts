// A small seeded PRNG (mulberry32): the same seed gives the same numbers on every machine, so a
// simulated history can be replayed exactly from its seed.
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A new generator whose numbers depend on this one's seed and `salt` only. */
  fork(salt: number): Prng {
    return new Prng((this.int(0, 0xffffffff) ^ Math.imul(salt, 0x9e3779b1)) >>> 0);
  }
}
