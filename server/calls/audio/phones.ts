// What each character of a spoken text sounds like to the speech synthesizer: the vowel formants it is voiced
// through, how loud its voiced part is, and its hiss (fricatives, bursts). Not phonetics, just enough to sound
// like a voice reading the text; characters that are neither letters nor digits are the pauses between words.

export interface Phone {
  /** The first three formants (Hz) the voiced part sounds through. */
  formants: readonly [number, number, number];
  /** Loudness of the voiced part, 0-1. */
  voice: number;
  /** Loudness of the hiss, 0-1, and the frequency (Hz) it is centred on. */
  noise: number;
  noiseHz: number;
}

// Peterson & Barney's adult averages, rounded.
const VOWEL_FORMANTS = {
  a: [730, 1090, 2440],
  e: [530, 1840, 2480],
  i: [270, 2290, 3010],
  o: [570, 840, 2410],
  u: [300, 870, 2240],
} as const;

const vowel = (v: keyof typeof VOWEL_FORMANTS): Phone => ({
  formants: VOWEL_FORMANTS[v],
  voice: 1,
  noise: 0,
  noiseHz: 0,
});
const voiced = (formants: Phone['formants'], voice: number, noise = 0, noiseHz = 0): Phone => ({
  formants,
  voice,
  noise,
  noiseHz,
});
/** A voiceless consonant: hiss alone, the vowel tract held near a neutral schwa. */
const hiss = (noise: number, noiseHz: number): Phone => voiced([500, 1500, 2500], 0, noise, noiseHz);

const PHONES: Record<string, Phone> = {
  a: vowel('a'),
  e: vowel('e'),
  i: vowel('i'),
  o: vowel('o'),
  u: vowel('u'),
  y: vowel('i'),
  m: voiced([250, 1100, 2300], 0.4),
  n: voiced([250, 1500, 2500], 0.4),
  l: voiced([360, 1300, 2700], 0.5),
  r: voiced([420, 1300, 1600], 0.5),
  w: voiced([300, 700, 2200], 0.45),
  j: voiced([280, 2100, 2900], 0.35, 0.15, 2600),
  b: voiced([200, 1100, 2150], 0.25, 0.1, 1200),
  d: voiced([200, 1600, 2600], 0.25, 0.1, 3000),
  g: voiced([200, 1900, 2300], 0.25, 0.1, 2200),
  v: voiced([220, 1100, 2100], 0.25, 0.25, 3000),
  z: voiced([220, 1600, 2600], 0.2, 0.35, 3700),
  s: hiss(0.5, 3700),
  f: hiss(0.3, 3000),
  h: hiss(0.25, 1600),
  t: hiss(0.4, 3200),
  k: hiss(0.35, 2200),
  c: hiss(0.35, 2200),
  q: hiss(0.35, 2200),
  p: hiss(0.3, 1200),
  x: hiss(0.45, 2800),
};

/** A pause: nothing voiced, no hiss, the tract at rest. */
export const SILENT: Phone = { formants: [500, 1500, 2500], voice: 0, noise: 0, noiseHz: 1500 };

const VOWEL_CYCLE = [vowel('a'), vowel('e'), vowel('i'), vowel('o'), vowel('u')];

/** How `char` sounds; null for a pause (spaces, punctuation). Digits and other letters get a vowel of their own. */
export function phoneOf(char: string): Phone | null {
  const lower = char.toLowerCase();
  const known = PHONES[lower];
  if (known) return known;
  if (!/[\p{L}\p{N}]/u.test(lower)) return null;
  return VOWEL_CYCLE[(lower.codePointAt(0) ?? 0) % VOWEL_CYCLE.length];
}
