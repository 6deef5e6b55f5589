// Point 9 of issue 20: for every operation of the spec, valid requests and seeded malformed variants, on both
// engines: no 5xx, every error a catalogued problem+json, and nothing changed by a refused request.
// Replay a failure with FUZZ_SEED=<the printed seed> npx vitest run test/fuzz/fuzz.test.ts
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { stateOfAccount } from '../support/rows.js';
import { loadSpec } from '../../server/http/spec.js';
import { fuzzAccount, type FuzzAccountOf } from './accounts.js';
import { judge } from './judge.js';
import { Random, fuzzSeed } from './random.js';
import { RequestFactory, type FuzzRequest } from './requests.js';
import { sender } from './send.js';

const SEED = fuzzSeed();
/** Per engine: refused variants against one account, valid and maybe-valid requests against another. */
const REFUSED = Number(process.env.FUZZ_REFUSED ?? 2600);
const ALLOWED = Number(process.env.FUZZ_ALLOWED ?? 2600);
/** Refused variants between two comparisons of the account's rows. */
const BATCH = 200;
const CONCURRENCY = 8;
// About 30 s each on a quiet machine; CI runs three test files at once on two CPUs.
const SLOW = { timeout: 90_000 };

describe.each(ENGINES)('fuzzing every operation of the spec (%s)', (engine) => {
  const t = useTestServer({
    engine,
    env: {
      ...FAST_PIPELINE,
      RATE_LIMIT_PER_SECOND: '0',
      ADDRESS_VERIFICATION_DELAY: '1d',
      WEBHOOK_RETRY_BASE_MS: '60000',
      WEBHOOK_RETRY_MAX_MS: '60000',
    },
  });
  const operations = loadSpec().operations;
  let target: FuzzAccountOf;
  let playground: FuzzAccountOf;

  beforeAll(async () => {
    console.log(`fuzz seed ${SEED} (${engine}); replay with FUZZ_SEED=${SEED}`);
    [target, playground] = await Promise.all([fuzzAccount(t), fuzzAccount(t)]);
  });

  function report(requests: FuzzRequest[], answers: Parameters<typeof judge>[1][]): string[] {
    const seen = new Set<string>();
    const failures: string[] = [];
    requests.forEach((request, i) => {
      for (const problem of judge(request, answers[i])) {
        const key = `${request.operationId} ${request.variant} ${problem}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const answer = answers[i];
        const said = answer instanceof Error ? '' : ` ${answer.body.slice(0, 300)}`;
        const sent = request.body ? ` body ${JSON.stringify(request.body.subarray(0, 300).toString('utf8'))}` : '';
        failures.push(
          `${request.variant} on ${request.operationId}: ${problem} [${request.method} ${request.path.slice(0, 100)}` +
            ` auth=${request.auth}]${sent} →${said}`,
        );
      }
    });
    return failures;
  }

  it(`refuses ${REFUSED} malformed requests with a catalogued 4xx problem and changes nothing`, SLOW, async () => {
    const factory = new RequestFactory(new Random(SEED), operations);
    const random = new Random(SEED ^ 0x5eed);
    const requests = Array.from({ length: REFUSED }, () => factory.malformed(random.pick(operations), target));
    expectEveryOperation(requests);
    const { sendAll, close } = sender(t.directUrl, CONCURRENCY);
    const failures: string[] = [];
    try {
      let before = await stateOfAccount(t, target.sid);
      for (let at = 0; at < requests.length; at += BATCH) {
        const batch = requests.slice(at, at + BATCH);
        failures.push(...report(batch, await sendAll(batch)));
        const after = await stateOfAccount(t, target.sid);
        if (JSON.stringify(after) !== JSON.stringify(before)) {
          failures.push(
            `rows of the account changed during requests ${at}-${at + batch.length - 1}: ${diff(before, after)}`,
          );
          before = after;
        }
      }
    } finally {
      close();
    }
    expect(({} as Record<string, unknown>).polluted, 'Object.prototype was polluted').toBeUndefined();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it(`answers ${ALLOWED} valid and odd-but-valid requests without a 5xx`, SLOW, async () => {
    const factory = new RequestFactory(new Random(SEED + 1), operations);
    const random = new Random((SEED + 1) ^ 0x5eed);
    const requests = Array.from({ length: ALLOWED }, () => {
      const op = random.pick(operations);
      return random.chance(0.5) ? factory.valid(op, playground) : factory.maybeValid(op, playground);
    });
    expectEveryOperation(requests);
    const { sendAll, close } = sender(t.directUrl, CONCURRENCY);
    const failures = report(requests, await sendAll(requests).finally(close));
    expect(({} as Record<string, unknown>).polluted, 'Object.prototype was polluted').toBeUndefined();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });
});

/** Each operation of the spec gets requests of its own (the seed could otherwise leave one out). */
function expectEveryOperation(requests: FuzzRequest[]) {
  const covered = new Set(requests.map((r) => r.operationId));
  expect(loadSpec().operations.filter((op) => !covered.has(op.operationId))).toEqual([]);
}

/** The tables whose rows differ, with the first differing row. */
function diff(before: Record<string, unknown[]>, after: Record<string, unknown[]>): string {
  return Object.keys({ ...before, ...after })
    .filter((table) => JSON.stringify(before[table]) !== JSON.stringify(after[table]))
    .map((table) => {
      const gone = (before[table] ?? []).filter((row) => !(after[table] ?? []).includes(row));
      const added = (after[table] ?? []).filter((row) => !(before[table] ?? []).includes(row));
      return `${table}: -${JSON.stringify(gone.slice(0, 1))} +${JSON.stringify(added.slice(0, 1))}`;
    })
    .join('; ');
}
