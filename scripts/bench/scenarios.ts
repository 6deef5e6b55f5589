// The benchmark scenarios; each feature adds its own. A scenario gets a fresh server and prints table rows.
import type autocannon from 'autocannon';

export interface Target {
  url: string;
  apiKey: string;
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface BenchTools {
  load(options: autocannon.Options): Promise<Figures>;
  baseGet: Figures;
  basePost: Figures;
  row(name: string, figures: Figures, base?: Figures): string;
}

export interface Scenario {
  name: string;
  run(target: Target, tools: BenchTools): Promise<string[]>;
}

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
    async run(target, { load, baseGet, row }) {
      const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
      const single = `${target.url}/v1/lookups/phone-numbers/%2B447400123456`;
      // 1000 distinct numbers across eight countries, valid and not.
      const prefixes = ['+1415555', '+4420794', '+4915112', '+3361234', '+6141234', '+3906123', '+9198765', '+4930123'];
      const batch = JSON.stringify({ phone_numbers: Array.from({ length: 1000 }, (_, i) => prefixes[i % 8] + String(1000 + i).padStart(4, '0')) });
      const post = () => fetch(`${target.url}/v1/lookups/batch`, { method: 'POST', headers, body: batch });
      const get = () => fetch(single, { headers });
      const singleSequential = await sequential(get, 200);
      const batchSequential = await sequential(post, 50);
      const singleLoad = await load({ url: single, headers });
      const batchLoad = await load({ url: `${target.url}/v1/lookups/batch`, method: 'POST', headers, body: batch, connections: 4 });
      return [
        row('GET /v1/lookups/phone-numbers/{number}', singleLoad, baseGet),
        row('POST /v1/lookups/batch, 1000 numbers (4 connections)', batchLoad, baseGet),
        `| one client at a time: single lookup median ${singleSequential.median.toFixed(1)} ms (p99 ${singleSequential.p99.toFixed(1)}); batch of 1000 median ${batchSequential.median.toFixed(1)} ms (p99 ${batchSequential.p99.toFixed(1)}) | | | | | |`,
      ];
    },
  },
];

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
  return { median: times[Math.floor(times.length / 2)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] };
}
