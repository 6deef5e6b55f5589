// Loaded with `node --import` into every test process and into every worker thread the server starts (a thread
// started from a file inherits execArgv; one started from code is given this module first, below): a connect to
// anything but loopback, or a DNS lookup of any name but localhost, is refused before a packet leaves.
// Plain JavaScript because Node loads it before any TypeScript loader; network-guard.ts reports the attempts.
import dns from 'node:dns';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import threads, { BroadcastChannel, isMainThread } from 'node:worker_threads';

export const GUARD_MESSAGE = 'network guard: tests may only connect to loopback, refused';
export const GUARD_CHANNEL = 'network-guard';
const REFUSED = Symbol.for('network-guard.refused');
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

/** @param {string} host */
export function isLoopback(host) {
  const bare = host.replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(bare.toLowerCase())) return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

/** The attempts refused in this thread, or reported by the server's threads, since the last call. */
export function takeRefused() {
  return /** @type {string[]} */ (globalThis[REFUSED] ?? []).splice(0);
}

if (!globalThis[REFUSED]) {
  globalThis[REFUSED] = [];
  const channel = isMainThread ? null : new BroadcastChannel(GUARD_CHANNEL);
  channel?.unref();

  /** @param {string} what */
  const refuse = (what) => {
    if (channel) channel.postMessage(what);
    else globalThis[REFUSED].push(what);
    return Object.assign(new Error(`${GUARD_MESSAGE} ${what}`), { code: 'ECONNREFUSED' });
  };

  /** The host a `connect(...)` call aims at, or null for a local socket path (IPC). @param {unknown[]} args */
  const targetOf = (args) => {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    if (typeof first === 'object' && first !== null) return first.path ? null : (first.host ?? 'localhost');
    if (typeof first === 'string' && !/^\d+$/.test(first)) return null;
    return typeof args[1] === 'string' ? args[1] : 'localhost';
  };

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const host = targetOf(args);
    if (host !== null && !isLoopback(host)) {
      const error = refuse(`a connection to ${host}`);
      // Fail the socket the way a refused connection does, so callers see an error instead of a hang.
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return connect.apply(this, args);
  };

  const lookup = dns.lookup;
  dns.lookup = function guardedLookup(hostname, ...rest) {
    if (isLoopback(String(hostname))) return lookup.call(dns, hostname, ...rest);
    const error = refuse(`a DNS lookup of ${hostname}`);
    process.nextTick(() => rest[rest.length - 1](error));
    return undefined;
  };

  const promisesLookup = dns.promises.lookup;
  dns.promises.lookup = function guardedLookup(hostname, ...rest) {
    if (isLoopback(String(hostname))) return promisesLookup.call(dns.promises, hostname, ...rest);
    return Promise.reject(refuse(`a DNS lookup of ${hostname}`));
  };

  // Node does not apply --import to a thread started from a string of code (`eval: true`), as the server's threads are.
  const Worker = threads.Worker;
  threads.Worker = class GuardedWorker extends Worker {
    constructor(code, options) {
      const guarded = `import(${JSON.stringify(import.meta.url)}).then(() => {\n${code}\n});`;
      super(options?.eval ? guarded : code, options);
    }
  };
  syncBuiltinESMExports();
}
