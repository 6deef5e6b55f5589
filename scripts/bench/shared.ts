// What several bench scenarios use: a pool of the account's numbers, CPU time per unit of work, waiting for rest.
import type { CpuTime, Figures, Target } from './scenarios.js';

/**
 * Provisions `count` numbers for the bench account: a sender pool, as a real high-volume sender has (with
 * `smsUrl`, each sends its inbound messages there).
 */
export async function numberPool(
  target: Pick<Target, 'url' | 'apiKey'>,
  count: number,
  smsUrl?: string,
): Promise<string[]> {
  const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  const pool: string[] = [];
  for (const area of ['212', '312', '415', '512', '617', '702', '206', '303']) {
    const found = (await (
      await fetch(`${target.url}/v1/available-phone-numbers/US/Local?area_code=${area}&page_size=100`, { headers })
    ).json()) as {
      data: { phone_number: string }[];
    };
    for (const n of found.data) {
      if (pool.length >= count) return pool;
      const res = await fetch(`${target.url}/v1/incoming-phone-numbers`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ PhoneNumber: n.phone_number, ...(smsUrl ? { SmsUrl: smsUrl } : {}) }),
      });
      if (res.status === 201) pool.push(n.phone_number);
    }
  }
  if (pool.length < count) throw new Error(`bench: only ${pool.length} numbers provisioned`);
  return pool;
}

/**
 * The server's CPU time per request (or message) between two readings, in ms and, for its main thread, in bare
 * POSTs (the same machine's yardstick): unlike a rate, it hardly depends on what else the machine does. The other
 * threads are mostly V8's garbage collector helpers, which the bare route has too (its yardstick counts them).
 */
export function serverCpu(
  unit: string,
  count: number,
  before: CpuTime | null,
  after: CpuTime | null,
  barePostCpuMs: number | null,
): string {
  if (!before || !after) return '';
  const per = (seconds: number) => (seconds * 1000) / count;
  const main = per(after.main - before.main);
  const inBarePosts = barePostCpuMs ? ` (${(main / barePostCpuMs).toFixed(2)} bare POSTs)` : '';
  const all = per(after.all - before.all).toFixed(3);
  return `; server CPU per ${unit}: main thread ${main.toFixed(3)} ms${inBarePosts}, all threads ${all} ms`;
}

/** CPU seconds over half a second below which a server is idle (see settled). */
const IDLE_CPU_SECONDS = process.env.BENCH_CPU_PROF ? 0.1 : 0.01;

/** Waits until the server has finished its background work (its CPU time stops growing), so a load starts it from
 * rest. Answers its CPU time when it went idle: the reading before the quiet half second, which holds only timers. */
export async function settled(target: Target, timeoutMs = 180_000): Promise<CpuTime | null> {
  const deadline = Date.now() + timeoutMs;
  let last = await target.cpu();
  while (last && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await target.cpu();
    // Under 2% of a core over the half second (20% under BENCH_CPU_PROF: V8's sampling thread alone takes 10-15% of a
    // core, and below 2% every wait ran to its timeout, three minutes a round): idle but for its timers.
    if (!now || now.all - last.all < IDLE_CPU_SECONDS) return last;
    last = now;
  }
  return last;
}

/** A route's loads beside as many of the bare route's, pooled (see besideBare). */
export interface Beside {
  /** The route's mean rate over the bare route's. */
  ratio: number;
  /** Each round's share, as printed. */
  shares: string;
  /** The route's figures: its mean rate, all its requests and errors, the latencies of the median round. */
  route: Figures;
  /** The bare route's mean rate, the latencies of the median round. */
  bare: Figures;
}

/**
 * Loads a route in `rounds` rounds beside as many loads of the bare route (the bare route first in every other round)
 * and pools them: the shared machine's speed drifts between two loads by more than a target's margin, so one bare load
 * then one of the route gave ratios a third apart within the hour.
 */
export async function besideBare(
  rounds: number,
  bare: () => Promise<Figures>,
  route: () => Promise<Figures>,
): Promise<Beside> {
  const pairs: { bare: Figures; route: Figures }[] = [];
  for (let round = 0; round < rounds; round++) {
    const bareFirst = round % 2 === 0 ? await bare() : null;
    const loaded = await route();
    pairs.push({ bare: bareFirst ?? (await bare()), route: loaded });
  }
  const mean = (kind: 'bare' | 'route') => pairs.reduce((n, p) => n + p[kind].rps, 0) / pairs.length;
  const share = (p: (typeof pairs)[number]) => p.route.rps / p.bare.rps;
  const middle = [...pairs].sort((a, b) => share(a) - share(b))[Math.floor(pairs.length / 2)];
  return {
    ratio: mean('route') / mean('bare'),
    shares: pairs.map((p) => `${(share(p) * 100).toFixed(0)}%`).join(', '),
    route: {
      ...middle.route,
      rps: mean('route'),
      requests: pairs.reduce((n, p) => n + p.route.requests, 0),
      errors: pairs.reduce((n, p) => n + p.route.errors, 0),
    },
    bare: { ...middle.bare, rps: mean('bare') },
  };
}
