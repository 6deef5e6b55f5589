// Editing the call's timeline as the machine runs: adding sounds (in order of start, bounded), cutting what an
// interruption stopped, and taking the window a recording holds.
import { dtmfMs, speechMs } from '../audio/durations.js';
import type { Segment, Side, Sound } from '../audio/timeline.js';

/**
 * The timeline is stored with the call after every step, so it keeps only what a recording may still need (see
 * keepFrom); as a last resort it is bounded: beyond this many segments the oldest are dropped (a call needs hours of
 * short sounds to get there; its whole-call recording then loses its start).
 */
const MAX_SEGMENTS = 4000;

/**
 * Adds a sound in order of start (sounds from the other end may be taken in after they started), merging it into
 * the same sound just before it on the same side: a silence, a tone, or speech of the same text (the renderer repeats
 * a speech segment longer than its text, so a looping Say is one segment, its text stored once).
 */
export function appendSegment(timeline: Segment[], segment: Segment): void {
  if (segment.ms <= 0) return;
  let at = timeline.length;
  while (at > 0 && timeline[at - 1].atMs > segment.atMs) at--;
  const before = timeline[at - 1];
  if (
    at === timeline.length &&
    before !== undefined &&
    before.side === segment.side &&
    sameSound(before.sound, segment.sound) &&
    before.atMs + before.ms === segment.atMs
  ) {
    before.ms += segment.ms;
    return;
  }
  timeline.splice(at, 0, segment);
  if (timeline.length > MAX_SEGMENTS) timeline.splice(0, timeline.length - MAX_SEGMENTS);
}

/** Digits or speech from the other end, heard from `atMs` for as long as they sound. */
export function appendHeard(timeline: Segment[], sound: Extract<Sound, { kind: 'dtmf' | 'speech' }>, atMs: number) {
  const ms = sound.kind === 'dtmf' ? dtmfMs(sound.digits) : speechMs(sound.text);
  appendSegment(timeline, { atMs, ms, side: 'party', sound });
}

function sameSound(a: Sound, b: Sound): boolean {
  if (a.kind === 'silence') return b.kind === 'silence';
  if (a.kind === 'tone') return b.kind === 'tone' && a.hz === b.hz;
  if (a.kind === 'speech') return b.kind === 'speech' && a.text === b.text;
  return false;
}

/** Drops the segments over by `fromMs`: no recording open can need them any more. */
export function keepFrom(timeline: Segment[], fromMs: number): void {
  let kept = 0;
  for (const segment of timeline) if (segment.atMs + segment.ms > fromMs) timeline[kept++] = segment;
  timeline.length = kept;
}

/** Stops every sound (of `side`, or both) at `atMs`: later ones never played, one under way is truncated. */
export function cutTimeline(timeline: Segment[], atMs: number, side: Side | null): void {
  for (let i = timeline.length - 1; i >= 0; i--) {
    const segment = timeline[i];
    if (side !== null && segment.side !== side) continue;
    if (segment.atMs >= atMs) timeline.splice(i, 1);
    else if (segment.atMs + segment.ms > atMs) segment.ms = atMs - segment.atMs;
  }
}

/** Copies of the segments heard in [startMs, endMs), clipped to it. */
export function windowOf(timeline: Segment[], startMs: number, endMs: number): Segment[] {
  return timeline.flatMap((segment) => {
    const from = Math.max(segment.atMs, startMs);
    const to = Math.min(segment.atMs + segment.ms, endMs);
    return to > from ? [{ ...segment, atMs: from, ms: to - from }] : [];
  });
}

/** When the last sound from the other end heard so far ends (-Infinity when none was). */
export function partySoundEndMs(timeline: Segment[]): number {
  let end = -Infinity;
  for (const segment of timeline) if (segment.side === 'party') end = Math.max(end, segment.atMs + segment.ms);
  return end;
}
