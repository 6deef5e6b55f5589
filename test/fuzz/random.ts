// The fuzz suite's seeded randomness: a tiny PRNG (mulberry32), so a failing run replays with FUZZ_SEED=<seed>.

/** The run's seed: FUZZ_SEED when set (decimal), else a fixed default so `npm test` is the same on every run. */
export function fuzzSeed(): number {
  const given = process.env.FUZZ_SEED;
  if (given === undefined || given === '') return 20_2026;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${given}`);
  return seed;
}

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
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
    return items[Math.floor(this.next() * items.length)];
  }

  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += '0123456789abcdef'[this.int(0, 15)];
    return out;
  }

  /** A derived generator, so that one stream's length does not shift another's values. */
  fork(): Random {
    return new Random(this.int(0, 0xffffffff));
  }
}
