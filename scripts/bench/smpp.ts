// Bench scenarios of the SMPP carrier: the messages pipeline (accepted → delivered, every status callback) through a
// loopback SMSC that sends a receipt for every submit, beside the sandbox pipeline measured in the same run.
import { startTestSmsc } from '../../test/support/smsc.js';
import { measurePipeline } from './messages.js';
import type { Scenario } from './scenarios.js';

// The target of the SMPP issue: the pipeline through the SMSC at 80% or more of the sandbox's rate.
const TARGET_RATIO = 0.8;
/** Raised for the bench (the defaults are 10 and 50, an SMSC account's usual limits). */
const WINDOW = process.env.BENCH_SMPP_WINDOW ?? '100';
const TPS = process.env.BENCH_SMPP_TPS ?? '5000';
// The server binds before the scenario runs, so the SMSC's port is chosen here; the session retries until it is up.
const SMSC_PORT = 20_000 + (process.pid % 20_000);

let sandboxRate: number | null = null;

export const smppScenarios: Scenario[] = [
  {
    name: 'smpp-sandbox-pipeline',
    serverCores: '0,1',
    async run(target, tools) {
      const { lines, rate } = await measurePipeline(target, tools, ' on the sandbox (beside SMPP)');
      sandboxRate = rate;
      return lines;
    },
  },
  {
    name: 'smpp-pipeline',
    serverCores: '0,1',
    env: {
      CARRIER: 'smpp',
      SMPP_URL: `smpp://bench:secret@127.0.0.1:${SMSC_PORT}`,
      SMPP_WINDOW: WINDOW,
      SMPP_TPS: TPS,
      SMPP_NUMBERS: '+12125550100-+12125550299',
    },
    async run(target, tools) {
      const smsc = await startTestSmsc({ port: SMSC_PORT, systemId: 'bench', password: 'secret' });
      try {
        smsc.autoReceipts('DELIVRD');
        const deadline = Date.now() + 30_000;
        while ((await fetch(`${target.url}/readyz`)).status !== 200) {
          if (Date.now() > deadline) throw new Error('bench: the SMPP session did not bind');
          await new Promise((r) => setTimeout(r, 100));
        }
        const label = ` through a loopback SMSC (SMPP_WINDOW=${WINDOW}, SMPP_TPS=${TPS}, a receipt per submit)`;
        const { lines, rate } = await measurePipeline(target, tools, label);
        const ratio = sandboxRate
          ? `${((rate / sandboxRate) * 100).toFixed(0)}% of the sandbox pipeline's ${sandboxRate.toFixed(0)} msg/s ` +
            `(target ${TARGET_RATIO * 100}%: ${rate / sandboxRate >= TARGET_RATIO ? 'met' : 'missed'}); ` +
            `the SMSC saw at most ${smsc.maxOutstanding} submits outstanding`
          : 'no sandbox pipeline measured in this run (run `npm run bench -- smpp`)';
        return [...lines, `| SMPP pipeline: ${rate.toFixed(0)} msg/s, ${ratio} | | | | | |`];
      } finally {
        await smsc.stop();
      }
    },
  },
];
