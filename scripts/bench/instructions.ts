// `npm run bench -- instructions`: the server's instructions per message through the pipeline, counted by valgrind's
// callgrind. A count of instructions does not depend on what else the machine runs (two runs of one build agree to
// within a few tenths of a per cent, on a machine whose speed moved threefold within the day), so two builds can be
// told apart by a few per cent, where the timed scenarios' spread between runs of one build is a fifth. It counts
// user-space instructions only: not the kernel's work for a system call, not cache misses, not the time a thread
// waits. A change that saves writes to a socket or wakes fewer processes shows in the timed scenarios, not here.
//
// The server runs from source (tsx) in the checkout given, so that another checkout (BENCH_BASELINE_DIR, say the
// build before a change, with this one's node_modules linked in) is measured the same way beside it.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startReceiver, type Receiver } from './messages.js';
import { numberPool } from './shared.js';

/** Messages counted, after a third as many sent first and not counted (V8 compiles the hot code meanwhile). */
const MESSAGES = Number(process.env.BENCH_INSTR_MESSAGES ?? 300);
/** Offered per second. Under callgrind the server runs 20-50 times slower than natively: at 30 it is saturated and
 * drains a backlog, so its transactions are grouped as under a full load; at 4 each message goes through alone. */
const RATE = Number(process.env.BENCH_INSTR_RATE ?? 30);
const SENDERS = 20;
const EXPECTED = ['message.sending', 'message.sent', 'message.delivered'];
/** Bounds of each step: a start under callgrind takes 10-20 s, a run of 400 messages about a minute. */
const START_MS = 300_000;
const DRAIN_MS = 600_000;

interface Count {
  /** Instructions per message (millions): the server's main thread, and all its threads. */
  main: number;
  all: number;
  /** The main thread's callgrind file, its JIT-compiled functions named (BENCH_INSTR_PROFILE). */
  profile?: string;
}

/** Waits until `n` messages have had all their callbacks at the receiver. */
async function completed(receiver: Receiver, n: number): Promise<void> {
  const deadline = Date.now() + DRAIN_MS;
  for (;;) {
    const complete = [...receiver.seen.values()].filter((entry) => entry.doneAt).length;
    if (complete >= n) return;
    if (Date.now() > deadline) throw new Error(`instructions: ${complete} of ${n} messages completed in time`);
    await sleep(200);
  }
}

/** Runs the server of `checkout` under callgrind and counts the instructions of MESSAGES messages. */
async function count(checkout: string, databaseUrl: string | undefined, profileDir: string | undefined) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-instr-'));
  const callbacks = await startReceiver(EXPECTED);
  const port = 20_000 + Math.floor(Math.random() * 30_000);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // As the timed scenarios run it (target.ts): responses are not checked against the spec.
    NODE_ENV: 'production',
    PORT: String(port),
    DATA_DIR: path.join(out, 'data'),
    LOG_LEVEL: 'warn',
    SECRET_KEY: randomBytes(32).toString('base64url'),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_SECOND: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: `bench_${randomBytes(4).toString('hex')}` } : {}),
  };
  if (!databaseUrl) delete env.DATABASE_URL;
  const node = [
    // The JIT's functions by name in /tmp/perf-<pid>.map, for the profile (interpreted ones too).
    ...(profileDir ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : []),
    '--import',
    'tsx',
    'server/main.ts',
  ];
  const valgrind = [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${out}/callgrind.%p`,
    process.execPath,
    ...node,
  ];
  const child = spawn('valgrind', valgrind, { cwd: checkout, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout.on('data', (d: Buffer) => (printed += d.toString()));
  child.stderr.on('data', (d: Buffer) => (printed += d.toString()));
  try {
    const started = Date.now();
    let key: string | undefined;
    while (!(key = /API key[^:]*: (\S+)/.exec(printed)?.[1])) {
      if (Date.now() - started > START_MS || child.exitCode !== null)
        throw new Error(`instructions: the server in ${checkout} did not start:\n${printed.slice(-2000)}`);
      await sleep(250);
    }
    const url = `http://127.0.0.1:${port}`;
    const senders = await numberPool({ url, apiKey: key }, SENDERS);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const send = async (n: number) => {
      const sent: Promise<void>[] = [];
      for (let i = 0; i < n; i++) {
        const body = JSON.stringify({
          from: senders[i % senders.length],
          to: '+14155550123',
          body: 'Your order 1042 has shipped.',
          status_callback: callbacks.url,
        });
        sent.push(
          fetch(`${url}/v1/messages`, { method: 'POST', headers, body }).then(async (res) => {
            if (res.status !== 201) throw new Error(`instructions: a send answered ${res.status}: ${await res.text()}`);
          }),
        );
        await sleep(1000 / RATE);
      }
      await Promise.all(sent);
    };
    const warmUp = Math.ceil(MESSAGES / 3);
    await send(warmUp);
    await completed(callbacks, warmUp);
    await sleep(2000);
    // valgrind runs the program in its own process: its pid is the server's.
    const control = (...args: string[]) =>
      execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
    control('--zero');
    control('--instr=on');
    await send(MESSAGES);
    await completed(callbacks, warmUp + MESSAGES);
    // The last callbacks' attempts are recorded after the receiver answered them.
    await sleep(2000);
    control('--dump=measured');
    control('--instr=off');
    return summarize(out, child.pid!, profileDir);
  } finally {
    child.kill('SIGKILL');
    void callbacks.close();
  }
}

/** The instructions per message of the dump's threads (the main thread is thread 1), and its named profile. */
function summarize(out: string, pid: number, profileDir: string | undefined): Count {
  let main = 0;
  let all = 0;
  let mainFile: string | undefined;
  for (const name of fs.readdirSync(out).filter((f) => f.startsWith('callgrind.'))) {
    const text = fs.readFileSync(path.join(out, name), 'utf8');
    if (!/^desc: Trigger: dump measured$/m.test(text)) continue;
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1] ?? 0);
    all += total;
    if (/^thread: 1$/m.test(text)) {
      main = total;
      mainFile = path.join(out, name);
    }
  }
  let profile: string | undefined;
  if (profileDir && mainFile) {
    fs.mkdirSync(profileDir, { recursive: true });
    profile = path.join(profileDir, `callgrind.${pid}.main`);
    nameJitFunctions(mainFile, `/tmp/perf-${pid}.map`, profile);
  }
  return { main: main / MESSAGES / 1e6, all: all / MESSAGES / 1e6, profile };
}

/**
 * callgrind names a function of V8's JIT by its address; the perf map V8 wrote (--perf-basic-prof) names the code
 * at each address range: the profile is written again with those names, for callgrind_annotate.
 */
function nameJitFunctions(file: string, perfMap: string, to: string): void {
  const ranges = fs
    .readFileSync(perfMap, 'utf8')
    .split('\n')
    .map((line) => /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ start: parseInt(m[1], 16), end: parseInt(m[1], 16) + parseInt(m[2], 16), name: m[3] }))
    .sort((a, b) => a.start - b.start);
  const nameAt = (address: number) => {
    let lo = 0;
    let hi = ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ranges[mid].start <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    const range = ranges[hi];
    return range && address < range.end ? range.name.replace(/\s+/g, '_') : undefined;
  };
  const named = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) =>
      line.replace(/^(c?fn=\(\d+\)) 0x([0-9a-f]+)$/, (whole, head: string, hex: string) => {
        const name = nameAt(parseInt(hex, 16));
        return name ? `${head} ${name}` : whole;
      }),
    );
  fs.writeFileSync(to, named.join('\n'));
}

function row(name: string, n: Count, base?: Count): string {
  const vs = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
  const against = base ? `${vs(n.main, base.main)} | ${vs(n.all, base.all)}` : 'baseline | baseline';
  return `| ${name} | ${n.main.toFixed(3)} | ${n.all.toFixed(3)} | ${against} |`;
}

export async function instructions(): Promise<void> {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    console.log('instructions: valgrind is not installed (Debian: apt-get install valgrind); nothing measured');
    return;
  }
  const here = path.resolve(import.meta.dirname, '../..');
  const baseline = process.env.BENCH_BASELINE_DIR;
  const profileDir = process.env.BENCH_INSTR_PROFILE;
  const engines: [string, string | undefined][] = [['SQLite', undefined]];
  if (process.env.BENCH_DATABASE_URL) engines.push(['PostgreSQL', process.env.BENCH_DATABASE_URL]);
  console.log(
    `# instructions: ${MESSAGES} messages at ${RATE}/s offered (after ${Math.ceil(MESSAGES / 3)} not counted), ` +
      `each with a status_callback, under callgrind; millions of instructions per message\n`,
  );
  console.log('| build, engine | main thread | all threads | main vs baseline | all vs baseline |');
  console.log('|---|---|---|---|---|');
  for (const [engine, url] of engines) {
    const base = baseline ? await count(path.resolve(baseline), url, profileDir) : undefined;
    if (base) console.log(row(`${path.basename(path.resolve(baseline!))}, ${engine}`, base));
    const ours = await count(here, url, profileDir);
    console.log(row(`this checkout, ${engine}`, ours, base));
    for (const profile of [base?.profile, ours.profile].filter(Boolean))
      console.log(`  profile: callgrind_annotate --inclusive=yes ${profile}`);
  }
}
