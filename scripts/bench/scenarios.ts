// The benchmark scenarios; each feature adds its own. A scenario gets a fresh server and prints table rows.
import type autocannon from 'autocannon';
import { messageScenarios } from './messages.js';
import { callScenarios } from './calls.js';
import { proxyScenarios } from './proxy.js';
import { dashboardScenarios } from './dashboard.js';
import type { Seeded } from './dashboard-seed.js';
import { smppScenarios } from './smpp.js';
import { systemScenarios } from './system.js';
import { clusterScenarios } from './cluster.js';
import { besideBare, serverCpu, type Beside } from './shared.js';

/** CPU time in seconds a server process has used so far: its main thread, and all its threads. */
export interface CpuTime {
  main: number;
  all: number;
  /** Garbage collection's pauses so far (ms). */
  gcMs: number;
}

/** How late the server's event loop ran a 10 ms timer (ms), since the last ask: its 99th percentile and its longest. */
export interface LoopDelay {
  p99: number;
  max: number;
}

export interface Target {
  url: string;
  apiKey: string;
  /** Null where the system does not tell (no /proc). */
  cpu(): Promise<CpuTime | null>;
  loopDelay(): Promise<LoopDelay>;
  /** Writes the dashboard scenario's data (100,000 messages and more) into the server's database. */
  seedDashboard(): Promise<Seeded>;
  /** Makes `count` more accounts on the server and answers their API keys. */
  moreApiKeys(count: number): Promise<string[]>;
}

export interface Figures {
  /** Requests answered in all. */
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** One load of the bare route's POST: its figures, its CPU time per request (ms, when known) and its loop's
 * lateness. */
export interface BareRound {
  figures: Figures;
  cpuMs: number | null;
  loop: LoopDelay;
}

export interface BenchTools {
  load: (options: autocannon.Options) => Promise<Figures>;
  baseGet: Figures;
  basePost: Figures;
  /** CPU time the bare route's process spent per POST (ms), when known: a yardstick of this machine's speed today. */
  barePostCpuMs: number | null;
  /** Loads the bare route's POST again (its server is still up, idle between loads), for a baseline taken right
   * beside a figure. */
  barePost: () => Promise<BareRound>;
  /** Loads the bare route's GET again, for a baseline taken right beside a figure. */
  bareGet: () => Promise<Figures>;
  row: (name: string, figures: Figures, base?: Figures) => string;
  loopFigures: (loop: LoopDelay) => string;
}

export interface Scenario {
  name: string;
  /** taskset cores of the server (default "0"; the load always runs on core 1). */
  serverCores?: string;
  /** Configuration of the server (environment variables) beyond the defaults. */
  env?: Record<string, string>;
  run(target: Target, tools: BenchTools): Promise<string[]>;
}

/*
 * WARM_UP: a scenario that pools rounds beside the bare route runs one load of its route first and leaves it out. A
 * fresh server's first seconds under load run code V8 has not optimized yet: in every run of both scenarios since
 * they were paired (2026-11-26), the first of three rounds was the lowest (the single lookup's 20, 17, 29, 34% against
 * 24-47% for the next two; the verify send's 12, 13, 15% against 16-38%), so it measured the start, not the server.
 * Proxy creation warms up too (3 s).
 */

/** Rounds of a route beside the bare route where a scenario pools them (besideBare). */
const ROUNDS_BESIDE_BARE = 3;

/** How long each load runs (bench.ts's BENCH_SECONDS). */
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);

export const scenarios: Scenario[] = [
  {
    name: 'system',
    async run(target, { load, baseGet, row }) {
      const health = await load({ url: `${target.url}/healthz` });
      return [row('GET /healthz (public, validated)', health, baseGet)];
    },
  },
  {
    name: 'lookups',
    async run(target, { load, baseGet, bareGet, row, barePostCpuMs }) {
      const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
      const single = `${target.url}/v1/lookups/phone-numbers/%2B447400123456`;
      // 1000 distinct numbers across eight countries, valid and not.
      const prefixes = ['+1415555', '+4420794', '+4915112', '+3361234', '+6141234', '+3906123', '+9198765', '+4930123'];
      const batch = JSON.stringify({
        phone_numbers: Array.from({ length: 1000 }, (_, i) => prefixes[i % 8] + String(1000 + i).padStart(4, '0')),
      });
      const post = () => fetch(`${target.url}/v1/lookups/batch`, { method: 'POST', headers, body: batch });
      const get = () => fetch(single, { headers });
      const singleSequential = await sequential(get, 200);
      const batchSequential = await sequential(post, 50);
      // A load first, not counted (see WARM_UP), then the single lookup in rounds beside the bare GET, pooled; its CPU
      // over all its loads (the bare route runs in another process, so the server is idle but for its timers between
      // them).
      await load({ url: single, headers });
      const singleLoad = await measured(target, barePostCpuMs, () =>
        besideBare(ROUNDS_BESIDE_BARE, bareGet, () => load({ url: single, headers })),
      );
      const batchLoad = await load({
        url: `${target.url}/v1/lookups/batch`,
        method: 'POST',
        headers,
        body: batch,
        connections: 4,
      });
      return [
        row(
          `GET /v1/lookups/phone-numbers/{number}, after a warm-up load, ${ROUNDS_BESIDE_BARE} rounds pooled beside ` +
            `as many loads of the bare GET (${singleLoad.bare.rps.toFixed(0)} req/s; rounds ${singleLoad.shares}; ` +
            `latencies from the median round)${singleLoad.cpu}; target 40% of bare ` +
            `${singleLoad.ratio >= 0.4 && singleLoad.route.errors === 0 ? 'met' : 'missed'}`,
          singleLoad.route,
          singleLoad.bare,
        ),
        row('POST /v1/lookups/batch, 1000 numbers (4 connections)', batchLoad, baseGet),
        `| one client at a time: single lookup median ${singleSequential.median.toFixed(1)} ms ` +
          `(p99 ${singleSequential.p99.toFixed(1)}); batch of 1000 median ${batchSequential.median.toFixed(1)} ms ` +
          `(p99 ${batchSequential.p99.toFixed(1)}) | | | | | |`,
      ];
    },
  },
  {
    name: 'verify',
    // An account may send VERIFY_MAX_SENDS_PER_HOUR codes (1000 by default), so the load, which runs for
    // BENCH_SECONDS like the others, spreads its sends over accounts, 900 each, every send to a number of its own.
    async run(target, { load, basePost, barePost, row, barePostCpuMs }) {
      const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
      const SENDS = 900;
      // The i-th send's number: the first account's 900 in +1415555xxxx, the rest after them.
      const numberAt = (i: number) => (i < SENDS ? `+1415555${String(i).padStart(4, '0')}` : `+1415${3_000_000 + i}`);
      // Room for 4,000 sends a second in each round and in the warm-up load before them, four times today's rate; a
      // faster server would see 401s (non-2xx) past it.
      const accounts = Math.ceil((DURATION_S * 4000) / SENDS) * (ROUNDS_BESIDE_BARE + 1);
      const keys = [target.apiKey, ...(await target.moreApiKeys(accounts - 1))];
      // The i-th send's account: 900 sends each, in turn.
      const authorizationOf = (i: number) => `Bearer ${keys[Math.floor(i / SENDS)]}`;
      // The first sends of a fresh server pay one-time work (the route's validators compiled, the +1 geocoding
      // table decoded, the queries built): fifty at once are timed apart, before the load, so that the load's p99 is
      // the steady state's. Forty-nine, the first account's 900 of the load and the fifty flows below stay within
      // its hourly cap of 1000 sends.
      const coldStarted = performance.now();
      const cold = await Promise.all(
        Array.from({ length: 49 }, async (_, i) => {
          const res = await fetch(`${target.url}/v1/verify/send`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ to: `+1415557${String(i).padStart(4, '0')}`, channel: 'sms' }),
          });
          await res.arrayBuffer();
          if (res.status !== 201) throw new Error(`verify bench: a first send answered ${res.status}`);
          return performance.now() - coldStarted;
        }),
      );
      // The sends in rounds beside the bare POST, pooled (besideBare); each account's sends in one round at most.
      let sent = 0;
      const sendLoad = () =>
        load({
          url: `${target.url}/v1/verify/send`,
          method: 'POST',
          headers,
          maxOverallRequests: accounts * SENDS - sent,
          requests: [
            {
              setupRequest: (req) => {
                const i = sent++;
                const to = numberAt(i);
                const authorization = authorizationOf(i);
                return { ...req, headers: { ...headers, authorization }, body: JSON.stringify({ to, channel: 'sms' }) };
              },
            },
          ],
        });
      await sendLoad(); // the warm-up, not counted (see WARM_UP)
      const measuredFrom = sent;
      const sends = await measured(target, barePostCpuMs, () =>
        besideBare(ROUNDS_BESIDE_BARE, async () => (await barePost()).figures, sendLoad),
      );
      const sendsMet = sends.ratio >= 0.25 && sends.route.p99 < 100 && sends.route.errors === 0;
      // The codes of the last 900 sends are checked: seconds old, where the warm-up's would expire (10 minutes) before
      // the checks with BENCH_SECONDS of 85 or more.
      const codes: { authorization: string; body: string }[] = [];
      for (let i = Math.max(0, sent - SENDS); i < sent; i++) {
        const authorization = authorizationOf(i);
        const res = await fetch(`${target.url}/v1/sandbox/verification-codes/${encodeURIComponent(numberAt(i))}`, {
          headers: { ...headers, authorization },
        });
        if (!res.ok) continue;
        const { code } = (await res.json()) as { code: string };
        codes.push({ authorization, body: JSON.stringify({ to: numberAt(i), code }) });
      }
      let checked = 0;
      // An amount, done in about a second: autocannon's rate (the mean of whole seconds' counts) would count the last,
      // partial second as a whole one, so the rate is the count over the time taken.
      const checksStarted = performance.now();
      const checks = await load({
        url: `${target.url}/v1/verify/check`,
        method: 'POST',
        headers,
        amount: codes.length,
        requests: [
          {
            setupRequest: (req) => {
              const { authorization, body } = codes[checked++ % codes.length];
              return { ...req, headers: { ...headers, authorization }, body };
            },
          },
        ],
      });
      checks.rps = checks.requests / ((performance.now() - checksStarted) / 1000);
      // One user at a time: send, read the code from the sandbox, check it.
      const flows: number[] = [];
      for (let i = 0; i < 50; i++) {
        const to = `+1415556${String(i).padStart(4, '0')}`;
        const started = performance.now();
        await (
          await fetch(`${target.url}/v1/verify/send`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ to, channel: 'sms' }),
          })
        ).arrayBuffer();
        const { code } = (await (
          await fetch(`${target.url}/v1/sandbox/verification-codes/${encodeURIComponent(to)}`, { headers })
        ).json()) as { code: string };
        const res = await fetch(`${target.url}/v1/verify/check`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ to, code }),
        });
        if (((await res.json()) as { status: string }).status !== 'approved')
          throw new Error('verify bench: the flow did not approve');
        flows.push(performance.now() - started);
      }
      flows.sort((a, b) => a - b);
      // The accounts the measured sends went through: they began where the warm-up stopped, inside an account.
      const measuredAccounts = Math.floor((sent - 1) / SENDS) - Math.floor(measuredFrom / SENDS) + 1;
      return [
        row(
          `POST /v1/verify/send, ${sends.route.requests} distinct numbers over ` +
            `${measuredAccounts} accounts (lookup + fraud guard + code), after a warm-up ` +
            `load, ${ROUNDS_BESIDE_BARE} rounds pooled beside as many loads of the bare POST ` +
            `(${sends.bare.rps.toFixed(0)} req/s; rounds ${sends.shares}; latencies from the median round)` +
            `${sends.cpu}; target 25% of bare with p99 under 100 ms ${sendsMet ? 'met' : 'missed'}`,
          sends.route,
          sends.bare,
        ),
        `| first 49 sends at once on a fresh server (before the load): all answered in ` +
          `${Math.max(...cold).toFixed(0)} ms | | | | | |`,
        row(`POST /v1/verify/check, right code (${codes.length} approvals)`, checks, basePost),
        `| one user at a time: send + read code + check median ${flows[25].toFixed(1)} ms ` +
          `(p99 ${flows[49].toFixed(1)}) | | | | | |`,
      ];
    },
  },
  {
    name: 'numbers',
    // Searches draw candidates from the numbering plan and drop held numbers with one query, so hold some first.
    async run(target, { load, baseGet, row, barePostCpuMs }) {
      const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
      const search = (path: string) => () => fetch(`${target.url}/v1/available-phone-numbers/${path}`, { headers });
      const held = (await (await search('US/Local?area_code=415&page_size=300')()).json()) as {
        data: { phone_number: string }[];
      };
      for (const n of held.data) {
        const res = await fetch(`${target.url}/v1/incoming-phone-numbers`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ PhoneNumber: n.phone_number }),
        });
        if (res.status !== 201) throw new Error(`numbers bench: provisioning answered ${res.status}`);
      }
      const searches = [
        'US/Local?area_code=415',
        'US/Local?in_region=CA&contains=77*&sms_enabled=true',
        'US/Local?in_locality=Chicago&mms_enabled=true',
        'DE/Local?sms_enabled=true',
        'GB/Local?area_code=20&contains=7946',
        'US/TollFree?area_code=888',
      ];
      const lines: string[] = [];
      for (const path of searches) {
        const { median, p99 } = await sequential(search(path), 200);
        lines.push(
          `| one client at a time: GET .../${path} (50 results, ${held.data.length} numbers of 415 held) ` +
            `median ${median.toFixed(1)} ms (p99 ${p99.toFixed(1)}) | | | | | |`,
        );
      }
      const url = `${target.url}/v1/available-phone-numbers/US/Local?area_code=415`;
      const loaded = await measured(target, barePostCpuMs, () => load({ url, headers }));
      return [
        row(`GET /v1/available-phone-numbers/US/Local?area_code=415 (50 results)${loaded.cpu}`, loaded, baseGet),
        ...lines,
      ];
    },
  },
  ...systemScenarios,
  ...messageScenarios,
  ...callScenarios,
  ...proxyScenarios,
  ...dashboardScenarios,
  ...smppScenarios,
  ...clusterScenarios,
];

/** A load's figures with the server's CPU time per request over it (serverCpu's text, empty when not known). */
async function measured<F extends Figures | Beside>(
  target: Target,
  barePostCpuMs: number | null,
  run: () => Promise<F>,
): Promise<F & { cpu: string }> {
  const before = await target.cpu();
  const figures = await run();
  const after = await target.cpu();
  const requests = 'route' in figures ? figures.route.requests : figures.requests;
  return { ...figures, cpu: serverCpu('request', requests, before, after, barePostCpuMs) };
}

/** Latency of `count` requests sent one after another (after a few warm-up requests), in ms. */
async function sequential(send: () => Promise<Response>, count: number): Promise<{ median: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < count + 5; i++) {
    const started = performance.now();
    const res = await send();
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`lookup bench: HTTP ${res.status}`);
    if (i >= 5) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    median: times[Math.floor(times.length / 2)],
    p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))],
  };
}
