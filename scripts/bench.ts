// `npm run bench`: loopback load on the real server, each figure beside a bare Express route of the same run.
import { fork, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  scenarios,
  type BareRound,
  type CpuTime,
  type Figures,
  type LoopDelay,
  type Scenario,
  type Target,
} from './bench/scenarios.js';
import type { Seeded } from './bench/dashboard-seed.js';
import { instructions } from './bench/instructions.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
})();

async function launch(
  kind: 'bare' | 'api',
  serverCores = '0',
  env: Record<string, string> = {},
): Promise<{ target: Target; child: ChildProcess }> {
  const script = path.join(import.meta.dirname, 'bench/target.ts');
  // The server gets core 0, this process (the load) core 1, so they do not fight for one core; a scenario
  // whose server works on more than one thread may give it every core.
  const profile =
    process.env.BENCH_CPU_PROF && kind === 'api' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = fork(script, [kind], {
    execArgv: ['--import', 'tsx', ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // The server's configuration: BENCH_ENV (JSON) from the command line, then the scenario's own.
    env: { ...process.env, BENCH_ENV: JSON.stringify({ ...JSON.parse(process.env.BENCH_ENV || '{}'), ...env }) },
  });
  if (hasTaskset && child.pid)
    execFileSync('taskset', ['-a', '-p', '-c', serverCores, String(child.pid)], { stdio: 'ignore' });
  type Asked = 'cpu' | 'loopDelay' | 'seedDashboard' | 'moreApiKeys';
  const ready = await new Promise<Omit<Target, Asked>>((resolve) =>
    child.once('message', (m) => resolve(m as Omit<Target, Asked>)),
  );
  // A question to the server process ('cpu', 'loop') and its answer, the message that carries that key.
  const ask = <T>(what: 'cpu' | 'loop' | 'seeded' | 'keys', message: unknown = what) =>
    new Promise<T>((resolve) => {
      const answer = (m: unknown) => {
        if (typeof m !== 'object' || m === null || !(what in m)) return;
        child.off('message', answer);
        resolve((m as Record<string, T>)[what]);
      };
      child.on('message', answer);
      child.send(message as string);
    });
  const cpu = () => ask<CpuTime | null>('cpu');
  const loopDelay = () => ask<LoopDelay>('loop');
  const seedDashboard = () => ask<Seeded>('seeded');
  const moreApiKeys = (count: number) => ask<string[]>('keys', { keys: count });
  return { target: { ...ready, cpu, loopDelay, seedDashboard, moreApiKeys }, child };
}

async function load(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...options });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: non2xx,
  };
}

/** How late a server's event loop was (see target.ts): under a saturating load, about how long one turn of it takes. */
function loopFigures(loop: LoopDelay): string {
  return `${loop.p99.toFixed(0)} ms at p99, ${loop.max.toFixed(0)} ms at most`;
}

function row(name: string, f: Figures, base?: Figures): string {
  const ratio = base ? `${((f.rps / base.rps) * 100).toFixed(0)}%` : 'baseline';
  return `| ${name} | ${f.rps.toFixed(0)} | ${ratio} | ${f.p50} | ${f.p99} | ${f.errors} |`;
}

async function main(): Promise<void> {
  if (hasTaskset) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  const only = process.argv[2];
  // Counted, not timed: no load, no bare route (see bench/instructions.ts).
  if (only === 'instructions') return instructions();
  console.log(
    `# bench: ${CONNECTIONS} connections, ${DURATION} s each, ` +
      `loopback${hasTaskset ? ', server on core 0, load on core 1' : ''}\n`,
  );
  // The load comes from one account, far above the per-account request rate: the limit is off unless asked for.
  const rate = (JSON.parse(process.env.BENCH_ENV || '{}') as Record<string, string>).RATE_LIMIT_PER_SECOND ?? '0';
  console.log(
    rate === '0'
      ? 'rate limit: off (RATE_LIMIT_PER_SECOND=0; set it in BENCH_ENV to measure it)\n'
      : `rate limit: on, RATE_LIMIT_PER_SECOND=${rate} (from BENCH_ENV)\n`,
  );
  // The bare route stays up for the scenarios that measure it again between their own rounds (see barePost).
  const bare = await launch('bare');
  try {
    const baseGet = await load({ url: `${bare.target.url}/bare` });
    const barePost = async (): Promise<BareRound> => {
      const cpuBefore = await bare.target.cpu();
      await bare.target.loopDelay();
      const figures = await load({
        url: `${bare.target.url}/bare`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: '+14155550100', body: 'hello' }),
      });
      const cpuAfter = await bare.target.cpu();
      const cpuMs = cpuBefore && cpuAfter ? ((cpuAfter.all - cpuBefore.all) * 1000) / figures.requests : null;
      return { figures, cpuMs, loop: await bare.target.loopDelay() };
    };
    const bareGet = () => load({ url: `${bare.target.url}/bare` });
    const first = await barePost();

    console.log('| route | req/s | vs bare | p50 ms | p99 ms | non-2xx |');
    console.log('|---|---|---|---|---|---|');
    console.log(row('bare Express GET', baseGet));
    console.log(row(`bare Express POST JSON; event loop late by ${loopFigures(first.loop)}`, first.figures));
    // Scenarios by name, or by part of one; several with commas (`verify,lookups,numbers`: one run, one baseline).
    const wanted = only?.split(',');
    for (const scenario of scenarios.filter((s: Scenario) => !wanted || wanted.some((w) => s.name.includes(w)))) {
      const api = await launch('api', scenario.serverCores, scenario.env);
      try {
        const tools = {
          load,
          baseGet,
          basePost: first.figures,
          barePostCpuMs: first.cpuMs,
          barePost,
          bareGet,
          row,
          loopFigures,
        };
        const lines = await scenario.run(api.target, tools);
        for (const line of lines) console.log(line);
      } finally {
        api.child.disconnect();
      }
    }
  } finally {
    bare.child.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
