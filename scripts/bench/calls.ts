// Bench scenarios of calls: POST /v1/calls under load beside the bare route, and 1,000 calls live at once on one
// instance (Say + Gather answered by the digit-pressing sandbox number + Record 5 s + Hangup), every status
// callback and recording checked by a loopback receiver in this process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchTools, Scenario, Target } from './scenarios.js';
import { numberPool, serverCpu, settled } from './shared.js';

const LIVE_CALLS = Number(process.env.BENCH_LIVE_CALLS ?? 1000);
const CALL_SPEED = '20';
// The targets: POST at 40% or more of the bare POST with a p99 within 3× the bare route's; 1,000 live
// calls all completed, callbacks in order, recordings completed, the event loop late by under 50 ms at p99.
const TARGET = { postRatio: 0.4, p99Factor: 3, loopP99Ms: 50 } as const;
const verdict = (met: boolean) => (met ? 'met' : 'missed');

const HANGUP = '<Response><Hangup/></Response>';
// About 45 s of call time (2.3 s of wall time at speed 20): long enough that the whole batch is live at once.
const LIVE_TWIML =
  '<Response><Say loop="8">Thank you for calling the sandbox bench line.</Say>' +
  '<Gather numDigits="4" timeout="5"><Say>Please enter your four digit code.</Say></Gather>' +
  '<Record maxLength="5" timeout="0" finishOnKey="" playBeep="true"/><Hangup/></Response>';
const CALL_EVENTS = ['call.initiated', 'call.ringing', 'call.answered', 'call.completed'];

async function postThroughput(target: Target, { load, barePost, row, loopFigures }: BenchTools): Promise<string[]> {
  const [from] = await numberPool(target, 1);
  const send = (duration?: number) =>
    load({
      url: `${target.url}/v1/calls`,
      method: 'POST',
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from, to: '+14155550123', twiml: HANGUP }),
      ...(duration ? { duration } : {}),
    });
  await send(3);
  await settled(target);
  const bare = await barePost();
  await target.loopDelay();
  const cpuBefore = await target.cpu();
  const figures = await send();
  const cpuAfter = await target.cpu();
  const loop = await target.loopDelay();
  const ratio = figures.rps / bare.figures.rps;
  const targets =
    `targets: ${TARGET.postRatio * 100}% of bare ${verdict(ratio >= TARGET.postRatio)}, ` +
    `p99 within ${TARGET.p99Factor}× bare ${verdict(figures.p99 <= TARGET.p99Factor * bare.figures.p99)}`;
  return [
    row(
      `POST /v1/calls (inline TwiML checked, insert + dial job), after a 3 s warm-up, beside a bare POST measured ` +
        `just before it (${bare.figures.rps.toFixed(0)} req/s, p99 ${bare.figures.p99} ms); server event loop late ` +
        `by ${loopFigures(loop)}${serverCpu('request', figures.requests, cpuBefore, cpuAfter, bare.cpuMs)}; ${targets}`,
      figures,
      bare.figures,
    ),
  ];
}

interface Seen {
  events: string[];
  recordings: number;
}

/** Counts each call's status events in arrival order, and the recordings completed per call. */
async function startReceiver() {
  const calls = new Map<string, Seen>();
  const entry = (sid: string) => calls.get(sid) ?? calls.set(sid, { events: [], recordings: 0 }).get(sid)!;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        data: { sid: string; call_sid?: string };
      };
      if (event.type === 'recording.completed') entry(event.data.call_sid!).recordings++;
      else if (event.type.startsWith('call.')) entry(event.data.sid).events.push(event.type);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function liveCalls(target: Target, { barePostCpuMs, loopFigures }: BenchTools): Promise<string[]> {
  const [from] = await numberPool(target, 1);
  const receiver = await startReceiver();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    from,
    to: '+15005550008',
    twiml: LIVE_TWIML,
    status_callback: receiver.url,
  });
  const post = () =>
    new Promise<string | null>((resolve, reject) => {
      const req = http.request(`${target.url}/v1/calls`, { method: 'POST', headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve(
            res.statusCode === 201 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { sid: string }).sid : null,
          ),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  await settled(target);
  await target.loopDelay();
  const cpuBefore = await target.cpu();
  const started = Date.now();
  const sids: string[] = [];
  let refused = 0;
  for (let i = 0; i < LIVE_CALLS; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, LIVE_CALLS - i) }, post));
    for (const sid of batch) if (sid) sids.push(sid);
    refused += batch.filter((sid) => !sid).length;
  }
  const placedIn = (Date.now() - started) / 1000;
  const done = (sid: string) => {
    const seen = receiver.calls.get(sid);
    return seen !== undefined && seen.events.includes('call.completed') && seen.recordings >= 1;
  };
  const deadline = Date.now() + 180_000;
  while (sids.some((sid) => !done(sid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const tookS = (Date.now() - started) / 1000;
  const cpuAfter = await target.cpu();
  const loop = await target.loopDelay();
  await receiver.close();
  agent.destroy();
  const completed = sids.filter(done).length;
  const inOrder = sids.filter((sid) => {
    const events = receiver.calls.get(sid)?.events ?? [];
    return events.length === CALL_EVENTS.length && events.every((type, i) => type === CALL_EVENTS[i]);
  }).length;
  const recorded = sids.filter((sid) => (receiver.calls.get(sid)?.recordings ?? 0) >= 1).length;
  const met = refused === 0 && completed === LIVE_CALLS && inOrder === LIVE_CALLS && loop.p99 < TARGET.loopP99Ms;
  return [
    `| ${LIVE_CALLS} live calls at SANDBOX_CALL_SPEED=${CALL_SPEED} on one instance (SQLite), each Say ×8 + Gather ` +
      `(digits pressed by +15005550008) + Record 5 s + Hangup, about 45 s of call time: placed in ` +
      `${placedIn.toFixed(1)} s (${refused} refused), all ended in ${tookS.toFixed(1)} s; ` +
      `${completed} completed with a completed recording, ` +
      `${inOrder} with exactly initiated → ringing → answered → completed, ${recorded} ` +
      `recordings completed${serverCpu('call', Math.max(1, completed), cpuBefore, cpuAfter, barePostCpuMs)}; ` +
      `server event loop late by ${loopFigures(loop)}; target (all completed, callbacks in order, loop p99 under ` +
      `${TARGET.loopP99Ms} ms) ${verdict(met)} | | | | | |`,
  ];
}

export const callScenarios: Scenario[] = [
  { name: 'calls-post', run: (target, tools) => postThroughput(target, tools) },
  {
    name: 'calls-live',
    serverCores: '0,1',
    env: { SANDBOX_CALL_SPEED: CALL_SPEED },
    run: (target, tools) => liveCalls(target, tools),
  },
];
