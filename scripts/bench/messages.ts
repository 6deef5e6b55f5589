// Bench scenarios of messages: POST /v1/messages under load, and the end-to-end pipeline (accepted → delivered,
// every status callback received by a loopback receiver in this process).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchTools, Scenario, Target } from './scenarios.js';
import { numberPool, serverCpu, settled } from './shared.js';

const PIPELINE_SECONDS = Number(process.env.BENCH_PIPELINE_SECONDS ?? 30);
// The pipeline is offered a fifth more than its target. Offered exactly the target, a pipeline that keeps pace
// completes at the offered rate give or take the jitter of its first and last messages (995-1,010 msg/s in runs that
// delivered everything in step), so the verdict was a coin toss; offered more, the backlog shows its capacity.
const PIPELINE_RATE = Number(process.env.BENCH_PIPELINE_RATE ?? 1200);
const POST_ROUNDS = Number(process.env.BENCH_POST_ROUNDS ?? 3);

// The speed targets of the messages issue: POST at 40% or more of the bare route with a p99 under 50 ms, at
// 50 connections; the pipeline completing 1,000 messages per second or more for 30 s, every callback received.
const TARGET = { postRatio: 0.4, postP99Ms: 50, pipelineRate: 1000, pipelineSeconds: 30 } as const;
// Issue 25's, on PostgreSQL: POST at 35% or more of the bare route with a p99 within three times the bare route's; the
// pipeline's main thread at most 0.8 ms a message.
const POSTGRES_TARGET = { postRatio: 0.35, p99Factor: 3, mainMsPerMessage: 0.8, issueHourBarePostMs: 0.104 } as const;
/**
 * Issue 25's 0.8 ms a message was set on the hour of its table (2026-11-25, afternoon; docs/benchmarks.md), when a bare
 * POST took 0.104 ms of main thread (the SQLite POST's 0.173 ms was 1.66 bare POSTs). On the bench's own yardstick,
 * which an hour's speed moves far less than milliseconds (a bare POST took from 0.10 to 0.42 ms of main thread on
 * this machine between 2026-11-25 and 2026-11-29), that is 7.7 bare POSTs: the row gives the verdict in both.
 */
const POSTGRES_TARGET_BARE_POSTS = POSTGRES_TARGET.mainMsPerMessage / POSTGRES_TARGET.issueHourBarePostMs;
const verdict = (met: boolean) => (met ? 'met' : 'missed');

export interface Receiver {
  url: string;
  /** Callbacks per message sid, and when its last expected one arrived. */
  seen: Map<string, { types: Set<string>; doneAt?: number }>;
  close(): Promise<void>;
}

export async function startReceiver(expected: string[]): Promise<Receiver> {
  const seen: Receiver['seen'] = new Map();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { sid: string } };
      const entry = seen.get(event.data.sid) ?? { types: new Set<string>() };
      entry.types.add(event.type);
      if (!entry.doneAt && expected.every((t) => entry.types.has(t))) entry.doneAt = Date.now();
      seen.set(event.data.sid, entry);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function postThroughput(
  target: Target,
  { load, barePost, row, loopFigures }: BenchTools,
  label = '',
  postgres = false,
): Promise<string[]> {
  const pool = await numberPool(target, 200);
  let i = 0;
  // The machine's speed drifts from one minute to the next: the bare route is measured again right before each
  // round of ours, and the round with the median ratio is the row (every round is listed beside it). Each round
  // starts once the server has sent the previous round's messages, so neither load shares the core with it.
  const send = (duration?: number) =>
    load({
      url: `${target.url}/v1/messages`,
      method: 'POST',
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({
              from: pool[i++ % pool.length],
              to: '+14155550123',
              body: 'Your order 1042 has shipped.',
            }),
          }),
        },
      ],
      ...(duration ? { duration } : {}),
    });
  // A running server has compiled its hot paths long ago: a first short load, not counted, does that here.
  await send(3);
  const rounds = [];
  for (let round = 0; round < POST_ROUNDS; round++) {
    await settled(target);
    const bare = await barePost();
    await target.loopDelay();
    const cpuBefore = await target.cpu();
    const figures = await send();
    const cpuAfter = await target.cpu();
    rounds.push({
      bare,
      figures,
      ratio: figures.rps / bare.figures.rps,
      cpu: serverCpu('request', figures.requests, cpuBefore, cpuAfter, bare.cpuMs),
      loop: await target.loopDelay(),
    });
  }
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
  const each = rounds
    .map(
      (r) =>
        `${(r.ratio * 100).toFixed(0)}% (${r.figures.rps.toFixed(0)} vs ${r.bare.figures.rps.toFixed(0)} req/s, ` +
        `p99 ${r.figures.p99} vs ${r.bare.figures.p99} ms)`,
    )
    .join(', ');
  const p99Bound = POSTGRES_TARGET.p99Factor * median.bare.figures.p99;
  const targets = postgres
    ? `targets (issue 25): ${POSTGRES_TARGET.postRatio * 100}% of bare ` +
      `${verdict(median.ratio >= POSTGRES_TARGET.postRatio)}, p99 within ${POSTGRES_TARGET.p99Factor}× bare's ` +
      `(${p99Bound} ms) ${verdict(median.figures.p99 <= p99Bound)}`
    : `targets: ${TARGET.postRatio * 100}% of bare ${verdict(median.ratio >= TARGET.postRatio)}, ` +
      `p99 under ${TARGET.postP99Ms} ms ${verdict(median.figures.p99 < TARGET.postP99Ms)}`;
  return [
    row(
      `POST /v1/messages (auth, validation, ownership check, insert + job)${label}, after a 3 s warm-up, ` +
        `the median of ${rounds.length} rounds, each beside a bare POST measured just before it ` +
        `(${median.bare.figures.rps.toFixed(0)} req/s, p99 ${median.bare.figures.p99} ms); ` +
        `server event loop late by ${loopFigures(median.loop)}${median.cpu}; rounds: ${each}; ${targets}`,
      median.figures,
      median.bare.figures,
    ),
  ];
}

async function pipeline(target: Target, tools: BenchTools, label = '', postgres = false): Promise<string[]> {
  return (await measurePipeline(target, tools, label, postgres)).lines;
}

/** The end-to-end pipeline's row, and the rate at which messages completed (msg/s). */
export async function measurePipeline(
  target: Target,
  { barePostCpuMs, loopFigures }: BenchTools,
  label = '',
  postgres = false,
): Promise<{ lines: string[]; rate: number }> {
  const pool = await numberPool(target, 200);
  const expected = ['message.sending', 'message.sent', 'message.delivered'];
  const receiver = await startReceiver(expected);
  const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  // When each message was accepted (its 201 arrived), by sid: the latency runs from there to its last callback.
  const acceptedAt = new Map<string, number>();
  const post = (from: string) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ from, to: '+14155550123', body: 'pipeline', status_callback: receiver.url });
      const req = http.request(`${target.url}/v1/messages`, { method: 'POST', headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode === 201)
            acceptedAt.set((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { sid: string }).sid, Date.now());
          resolve(res.statusCode ?? 0);
        });
      });
      req.on('error', reject);
      req.end(body);
    });

  // Offer PIPELINE_RATE messages per second for PIPELINE_SECONDS, in 10 ms ticks.
  const cpuBefore = await target.cpu();
  await target.loopDelay();
  const loadCpuBefore = process.cpuUsage();
  const started = Date.now();
  let offered = 0;
  let accepted = 0;
  let refused = 0;
  const inFlight = new Set<Promise<void>>();
  while (Date.now() - started < PIPELINE_SECONDS * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * PIPELINE_RATE);
    while (offered < due) {
      const p = post(pool[offered++ % pool.length]).then((status) => void (status === 201 ? accepted++ : refused++));
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all(inFlight);
  const acceptEnded = Date.now();
  const deadline = Date.now() + 120_000;
  const done = () => [...receiver.seen.values()].filter((e) => e.doneAt).length;
  while (done() < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const cpuAfter = await target.cpu();
  const loop = await target.loopDelay();
  const loadCpu = process.cpuUsage(loadCpuBefore);
  await receiver.close();
  agent.destroy();
  const doneAts = [...receiver.seen.values()].flatMap((e) => (e.doneAt ? [e.doneAt] : [])).sort((a, b) => a - b);
  const completed = doneAts.length;
  // The rate at which messages completed, from the first completion to the last: while the pipeline keeps up it
  // is the offered rate; when it falls behind, the backlog stretches the window and the rate shows its capacity.
  const windowSeconds = (doneAts[completed - 1] - doneAts[0]) / 1000;
  const latencies = [...receiver.seen]
    .flatMap(([sid, e]) => (e.doneAt && acceptedAt.has(sid) ? [e.doneAt - acceptedAt.get(sid)!] : []))
    .sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  const callbacks = [...receiver.seen.values()].reduce((n, e) => n + e.types.size, 0);
  // The server's CPU time per message is what bounds the rate (its main thread does all the work but sending the
  // webhooks); the load's own time per message goes beside it, as on this machine the two share a core.
  const loadMs = ((loadCpu.user + loadCpu.system) / 1e3 / completed).toFixed(2);
  const cpu =
    serverCpu('message', completed, cpuBefore, cpuAfter, barePostCpuMs) +
    (cpuBefore && cpuAfter ? ` (this bench's load and receiver: ${loadMs} ms)` : '');
  const rate = (completed - 1) / windowSeconds;
  // A message completes once all its expected callbacks arrived: every offered message completing is every callback.
  const allCompleted = refused === 0 && completed === accepted;
  const mainMs = cpuBefore && cpuAfter ? ((cpuAfter.main - cpuBefore.main) * 1000) / completed : NaN;
  const pipelineTarget = postgres
    ? `target (issue 25): main thread at most ${POSTGRES_TARGET.mainMsPerMessage} ms a message on the issue's hour, ` +
      `${POSTGRES_TARGET_BARE_POSTS.toFixed(1)} bare POSTs, every callback: ` +
      (barePostCpuMs
        ? `${verdict(allCompleted && mainMs / barePostCpuMs <= POSTGRES_TARGET_BARE_POSTS)} in bare POSTs ` +
          `(${(mainMs / barePostCpuMs).toFixed(2)}), `
        : '') +
      `${verdict(allCompleted && mainMs <= POSTGRES_TARGET.mainMsPerMessage)} in ms on this hour` +
      (barePostCpuMs ? ` (a bare POST ${barePostCpuMs.toFixed(3)} ms)` : '')
    : PIPELINE_RATE < TARGET.pipelineRate || PIPELINE_SECONDS < TARGET.pipelineSeconds
      ? `target (${TARGET.pipelineRate} msg/s for ${TARGET.pipelineSeconds} s) not measured: less was offered`
      : `target (${TARGET.pipelineRate} msg/s for ${TARGET.pipelineSeconds} s, every callback) ` +
        verdict(allCompleted && rate >= TARGET.pipelineRate);
  const groups = postgres ? await jobGroups(target.url) : '';
  const lines = [
    `| end-to-end${label}: ${PIPELINE_RATE} msg/s offered for ${PIPELINE_SECONDS} s from ${pool.length} numbers; ` +
      `${accepted} accepted (${refused} refused, accepting took ${((acceptEnded - started) / 1000).toFixed(1)} s); ` +
      `${completed} delivered with all 3 callbacks (${callbacks} callbacks), ` +
      `completing at **${rate.toFixed(0)} msg/s** over ${windowSeconds.toFixed(1)} s; ` +
      `accepted → last callback p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (sandbox step delays included)${cpu}; ` +
      `server event loop late by ${loopFigures(loop)}${groups}; ${pipelineTarget} | | | | | |`,
  ];
  return { lines, rate };
}

/** PostgreSQL: how the server's groups of job transactions ended (job_groups_total on /metrics). */
async function jobGroups(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = (outcome: string) =>
    Number(text.match(new RegExp(`^job_groups_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm'))?.[1] ?? 0);
  return `; job groups: ${count('committed')} committed, ${count('failed')} failed`;
}

// With BENCH_DATABASE_URL, the default POST and pipeline again on PostgreSQL (a fresh schema each), beside SQLite's.
const POSTGRES = process.env.BENCH_DATABASE_URL;
const onPostgres: Scenario[] = POSTGRES
  ? [
      {
        name: 'messages-post-postgres',
        env: { DATABASE_URL: POSTGRES },
        run: (target, tools) => postThroughput(target, tools, ' on PostgreSQL', true),
      },
      {
        name: 'messages-pipeline-postgres',
        serverCores: '0,1',
        env: { DATABASE_URL: POSTGRES },
        run: (target, tools) => pipeline(target, tools, ' on PostgreSQL', true),
      },
    ]
  : [];

export const messageScenarios: Scenario[] = [
  { name: 'messages-post', run: (target, tools) => postThroughput(target, tools) },
  // The pipeline's server sends its webhooks from a thread of its own: it gets both cores, sharing core 1 with
  // the load and the receiver.
  { name: 'messages-pipeline', serverCores: '0,1', run: (target, tools) => pipeline(target, tools) },
  // Both again with room for 800 background jobs at once instead of 100 (JOB_CONCURRENCY): the pipeline stays close
  // behind a high send rate, at the cost of POST throughput under a burst (see docs/benchmarks.md).
  {
    name: 'messages-post-concurrency',
    env: { JOB_CONCURRENCY: '800' },
    run: (target, tools) => postThroughput(target, tools, ' with JOB_CONCURRENCY=800'),
  },
  {
    name: 'messages-pipeline-concurrency',
    serverCores: '0,1',
    env: { JOB_CONCURRENCY: '800' },
    run: (target, tools) => pipeline(target, tools, ' with JOB_CONCURRENCY=800'),
  },
  ...onPostgres,
];
