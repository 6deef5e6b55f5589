// A small seeded PRNG (sfc32 seeded from an FNV-1a hash of a string): the same search draws the same numbers.

export interface Random {
  /** An integer in [0, n). */
  int(n: number): number;
}

/** FNV-1a, 32 bits. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function seededRandom(seed: string): Random {
  let a = hash32(seed);
  let b = hash32(`b:${seed}`);
  let c = hash32(`c:${seed}`);
  let d = 1;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return { int: (n) => Math.floor(next() * n) };
}
