// A formant voice (after Klatt 1980): a glottal pulse train at a gliding pitch through three vowel resonators in
// cascade, plus deterministic hiss through a fourth for consonants. Driven block by block by speech.ts.
import { SAMPLE_RATE } from './pcm.js';
import { type Phone, SILENT } from './phones.js';

/** Of the three formants and the hiss. */
const BANDWIDTHS = [100, 140, 200, 600];
/** A resonator's pole radius depends on its bandwidth alone: computed once, not at each retuning. */
const RADII = BANDWIDTHS.map((bandwidth) => Math.exp((-Math.PI * bandwidth) / SAMPLE_RATE));
/** Loudness and pitch glide towards each phone's targets sample by sample (time constants 12 and 30 ms) ... */
const LOUDNESS_GLIDE = 1 - Math.exp(-1 / (0.012 * SAMPLE_RATE));
const PITCH_GLIDE = 1 - Math.exp(-1 / (0.03 * SAMPLE_RATE));
/** ... and the formants block by block (about 5 ms), so one letter flows into the next. */
const FORMANT_GLIDE = 0.35;
/** How loud hiss is against the vowels: an `s` about a third of an `a`, as in speech. */
const HISS_GAIN = 4;

/**
 * The synthesizer between blocks: its glides, its glottis, its hiss, and four two-pole resonators (Klatt 1980: unity
 * gain at 0 Hz, a peak at their frequency), three vowel formants in cascade and one for the hiss. Their coefficients
 * and memories live in typed arrays and each block's loop works on locals: V8 keeps those unboxed.
 */
export class Voice {
  /** a, b, c of each resonator (y = a x + b y1 + c y2). */
  private readonly coefficients = new Float64Array(12);
  /** y1, y2 of each resonator. */
  private readonly memory = new Float64Array(8);
  /** Formant 1-3 and hiss centre (Hz) now, and whether each has reached its target (no need to retune). */
  private readonly centres = Float64Array.of(...SILENT.formants, SILENT.noiseHz);
  private readonly settled = [false, false, false, false];
  /** voice, noise, pitch, their targets, then glottal phase and flow. */
  private readonly state = Float64Array.of(0, 0, 120, 0, 0, 120, 0, 0);

  constructor(private seed: number) {}

  glideTo(phone: Phone, pitch: number): void {
    this.state[3] = phone.voice;
    this.state[4] = phone.noise;
    this.state[5] = pitch;
    for (let r = 0; r < 4; r++) {
      const target = r < 3 ? phone.formants[r] : phone.noiseHz;
      const gap = target - this.centres[r];
      if (Math.abs(gap) < 1) {
        if (this.settled[r]) continue;
        this.centres[r] = target;
        this.settled[r] = true;
      } else {
        this.centres[r] += gap * FORMANT_GLIDE;
        this.settled[r] = false;
      }
      this.tune(r, this.centres[r]);
    }
  }

  private tune(r: number, hz: number): void {
    const radius = RADII[r];
    const theta = (2 * Math.PI * hz) / SAMPLE_RATE;
    const c = -radius * radius;
    const b = 2 * radius * Math.cos(theta);
    // The vowel formants pass 0 Hz at unity gain, as in a cascade; the hiss has unity gain at its centre, or a high
    // hiss would be many times louder than the vowels.
    this.coefficients[r * 3] =
      r < 3 ? 1 - b - c : (1 - radius) * Math.sqrt(1 - 2 * radius * Math.cos(2 * theta) + radius * radius);
    this.coefficients[r * 3 + 1] = b;
    this.coefficients[r * 3 + 2] = c;
  }

  fill(out: Float32Array, from: number, to: number): void {
    // Plain indexed reads and writes, not destructuring: measured 4x faster (a typed array destructures through
    // its iterator, and V8 does not see through `[a, b] = [x, y]` here).
    const k = this.coefficients;
    const a1 = k[0],
      b1 = k[1],
      c1 = k[2],
      a2 = k[3],
      b2 = k[4],
      c2 = k[5],
      a3 = k[6],
      b3 = k[7],
      c3 = k[8];
    const af = k[9],
      bf = k[10],
      cf = k[11];
    const m = this.memory;
    let p1 = m[0],
      q1 = m[1],
      p2 = m[2],
      q2 = m[3],
      p3 = m[4],
      q3 = m[5],
      pf = m[6],
      qf = m[7];
    const s = this.state;
    let voice = s[0],
      noise = s[1],
      pitch = s[2],
      phase = s[6],
      flow = s[7];
    const voiceTo = s[3],
      noiseTo = s[4],
      pitchTo = s[5];
    let seed = this.seed;
    for (let n = from; n < to; n++) {
      voice += (voiceTo - voice) * LOUDNESS_GLIDE;
      noise += (noiseTo - noise) * LOUDNESS_GLIDE;
      pitch += (pitchTo - pitch) * PITCH_GLIDE;
      // The glottis: a pulse each pitch period, smoothed into a decaying flow (a falling spectrum, like a voice's).
      phase += pitch / SAMPLE_RATE;
      const pulse = phase >= 1 ? 1 : 0;
      phase -= pulse;
      flow = 0.9 * flow + pulse;
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const y1 = a1 * flow * voice + b1 * p1 + c1 * q1;
      const y2 = a2 * y1 + b2 * p2 + c2 * q2;
      const y3 = a3 * y2 + b3 * p3 + c3 * q3;
      const yf = af * (seed / 0x100000000 - 0.5) * noise + bf * pf + cf * qf;
      q1 = p1;
      p1 = y1;
      q2 = p2;
      p2 = y2;
      q3 = p3;
      p3 = y3;
      qf = pf;
      pf = yf;
      out[n] = y3 + yf * HISS_GAIN;
    }
    m[0] = p1;
    m[1] = q1;
    m[2] = p2;
    m[3] = q2;
    m[4] = p3;
    m[5] = q3;
    m[6] = pf;
    m[7] = qf;
    s[0] = voice;
    s[1] = noise;
    s[2] = pitch;
    s[6] = phase;
    s[7] = flow;
    this.seed = seed;
  }
}
