// What several bench scenarios use: a pool of the account's numbers, CPU time per unit of work, waiting for rest.
import type { CpuTime, Target } from './scenarios.js';

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

/** Waits until the server has finished its background work (its CPU time stops growing), so a load starts it from
 * rest. Answers its CPU time when it went idle: the reading before the quiet half second, which holds only timers. */
export async function settled(target: Target, timeoutMs = 180_000): Promise<CpuTime | null> {
  const deadline = Date.now() + timeoutMs;
  let last = await target.cpu();
  while (last && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await target.cpu();
    // Under 2% of a core over the half second: idle but for its timers.
    if (!now || now.all - last.all < 0.01) return last;
    last = now;
  }
  return last;
}
