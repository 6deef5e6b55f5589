// `npm run bench -- dashboard`: every dashboard page's server time (its Server-Timing header) with 100,000 messages
// in the account, median and p99 of sequential requests, against the target of 50 ms.
import type { Scenario, Target } from './scenarios.js';
import type { Seeded } from './dashboard-seed.js';

const ROUNDS = 100;
const WARMUP = 5;
const TARGET_MS = 50;

/** Signs in with the bench key as a browser would (the form's token and cookie), and returns the session cookie. */
async function signIn(target: Target): Promise<string> {
  const form = await fetch(`${target.url}/dashboard/sign-in`);
  const preCookie = form.headers.getSetCookie()[0].split(';')[0];
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const res = await fetch(`${target.url}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: preCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, api_key: target.apiKey }),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='));
  if (!session) throw new Error(`bench: dashboard sign-in answered ${res.status}`);
  return session.split(';')[0];
}

/** The list page `hops` next-page links after `path` (page hops + 1). */
async function pageAfter(target: Target, cookie: string, path: string, hops: number): Promise<string> {
  let at = path;
  for (let i = 0; i < hops; i++) {
    const html = await (await fetch(`${target.url}${at}`, { headers: { cookie } })).text();
    const next = /href="([^"]+)" rel="next"/.exec(html);
    if (!next) throw new Error(`bench: ${at} has no next page (hop ${i + 1})`);
    at = next[1].replaceAll('&amp;', '&');
  }
  return at;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Requests `path` ROUNDS times one after another; the server's time of each (Server-Timing) and the client's. */
async function time(target: Target, cookie: string, path: string) {
  const server: number[] = [];
  const client: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const started = performance.now();
    const res = await fetch(`${target.url}${path}`, { headers: { cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`bench: ${path} answered ${res.status}`);
    if (i < WARMUP) continue;
    client.push(performance.now() - started);
    server.push(Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1]));
  }
  server.sort((a, b) => a - b);
  client.sort((a, b) => a - b);
  return { p50: percentile(server, 0.5), p99: percentile(server, 0.99), client: percentile(client, 0.5) };
}

export const dashboardScenarios: Scenario[] = [
  {
    name: 'dashboard',
    async run(target) {
      const seeded: Seeded = await target.seedDashboard();
      const cookie = await signIn(target);
      const day = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10);
      const logs = '/dashboard/logs';
      const pages: [string, string][] = [
        ['Messages', `${logs}/messages`],
        ['Messages, status failed', `${logs}/messages?status=failed`],
        ['Messages, to one of 1000 recipients', `${logs}/messages?to=${encodeURIComponent(seeded.rareTo)}`],
        [
          'Messages, 10 days 40 to 30 days ago',
          `${logs}/messages?created_from=${day(40 * 86_400_000)}&created_to=${day(30 * 86_400_000)}`,
        ],
        ['Messages, page 50 (next-page tokens)', await pageAfter(target, cookie, `${logs}/messages`, 49)],
        ['Messages, page 50 back to 49 (previous token)', ''],
        ['Message with its webhook attempts', `${logs}/messages/${seeded.messageSid}`],
        ['Calls', `${logs}/calls`],
        ['Call', `${logs}/calls/${seeded.callSid}`],
        ['Verifications', `${logs}/verifications`],
        ['Verification', `${logs}/verifications/${seeded.verificationSid}`],
        ['Proxy sessions', `${logs}/proxy-sessions`],
        ['Proxy session', `${logs}/proxy-sessions/${seeded.proxySessionSid}`],
        ['Settings > Webhook secret', '/dashboard/settings/webhook-secret'],
        ['Sandbox', '/dashboard/sandbox'],
      ];
      // Page 49 reached backward from page 50: its previous-page link.
      const page50 = pages[4][1];
      const html50 = await (await fetch(`${target.url}${page50}`, { headers: { cookie } })).text();
      pages[5][1] = /href="([^"]+)" rel="prev"/.exec(html50)![1].replaceAll('&amp;', '&');

      const lines = [
        '',
        `dashboard: 100,000 messages, 10,000 calls, 10,000 verifications, 2,000 proxy sessions in the account ` +
          `(seeded in ${(seeded.ms / 1000).toFixed(1)} s); ${ROUNDS} sequential requests per page after ${WARMUP}`,
        '',
        '| dashboard page | server median ms | server p99 ms | client median ms | under 50 ms at p99 |',
        '|---|---|---|---|---|',
      ];
      for (const [name, path] of pages) {
        const t = await time(target, cookie, path);
        const ok = t.p99 < TARGET_MS ? 'yes' : 'NO';
        lines.push(`| ${name} | ${t.p50.toFixed(1)} | ${t.p99.toFixed(1)} | ${t.client.toFixed(1)} | ${ok} |`);
      }
      return lines;
    },
  },
];
