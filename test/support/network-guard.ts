// A vitest setup file: fails the test (or the file) during which anything tried to reach beyond loopback, naming the
// host. The refusing itself is network-guard-preload.mjs, loaded into every process and thread of the run.
import { BroadcastChannel } from 'node:worker_threads';
import { afterAll, afterEach } from 'vitest';
import { GUARD_CHANNEL, GUARD_MESSAGE, takeRefused } from './network-guard-preload.mjs';

export { GUARD_MESSAGE, isLoopback } from './network-guard-preload.mjs';

const fromThreads: string[] = [];
const expected = new Set<string>();

/**
 * For the rest of this file, a refused attempt to reach `host` does not fail it (it is still refused): for the
 * contract test, whose spec examples point callbacks at example hosts.
 */
export function expectRefused(host: string): void {
  expected.add(host);
}

const channel = new BroadcastChannel(GUARD_CHANNEL);
channel.onmessage = (event) => fromThreads.push(String((event as MessageEvent).data));
channel.unref();

function failOnRefused() {
  const seen = [...takeRefused(), ...fromThreads.splice(0)].filter((what) => !expected.has(what.split(' ').pop()!));
  if (seen.length === 0) return;
  throw new Error(`${GUARD_MESSAGE}: ${[...new Set(seen)].join('; ')}`);
}

// afterEach names the test that tried; afterAll catches attempts made by hooks or background work between tests.
afterEach(failOnRefused);
afterAll(failOnRefused);
