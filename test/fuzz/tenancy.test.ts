// Issue 20 point 9: another account's sid answers 404 not_found exactly like an unknown sid, and changes nothing.
// One row per operation with a path parameter, derived from the spec: a new operation without a row fails here.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { stateOfAccount } from '../support/rows.js';
import { waitUntil } from '../support/wait.js';
import { loadSpec } from '../../server/http/spec.js';
import { callAs, fuzzAccount, type FuzzAccountOf } from './accounts.js';

interface Row {
  /** The path parameters naming account A's resource. */
  own: (a: FuzzAccountOf) => Record<string, string>;
  /** The same parameters naming nothing at all. */
  unknown: Record<string, string>;
  body?: unknown;
}
/** An operation whose path parameter names no resource of an account. */
interface NotApplicable {
  notTenant: string;
}

const unknownSid = (prefix: string) => `${prefix}${'0123456789abcdef'.repeat(2)}`;

const TABLE: Record<string, Row | NotApplicable> = {
  getMessage: { own: (a) => ({ sid: a.messageSid }), unknown: { sid: unknownSid('SM') } },
  deleteMessage: { own: (a) => ({ sid: a.messageSid }), unknown: { sid: unknownSid('SM') } },
  getIncomingPhoneNumber: { own: (a) => ({ sid: a.numberSid }), unknown: { sid: unknownSid('PN') } },
  updateIncomingPhoneNumber: {
    own: (a) => ({ sid: a.numberSid }),
    unknown: { sid: unknownSid('PN') },
    body: { FriendlyName: 'taken over' },
  },
  releasePhoneNumber: { own: (a) => ({ sid: a.numberSid }), unknown: { sid: unknownSid('PN') } },
  getAddress: { own: (a) => ({ sid: a.addressSid }), unknown: { sid: unknownSid('AD') } },
  deleteAddress: { own: (a) => ({ sid: a.addressSid }), unknown: { sid: unknownSid('AD') } },
  getVerification: { own: (a) => ({ sid: a.verificationSid }), unknown: { sid: unknownSid('VE') } },
  updateVerification: {
    own: (a) => ({ sid: a.verificationSid }),
    unknown: { sid: unknownSid('VE') },
    body: { status: 'canceled' },
  },
  getSandboxVerificationCode: { own: (a) => ({ to: a.verificationTo }), unknown: { to: '+14155550177' } },
  getSandboxVerificationRecording: {
    own: (a) => ({ sid: a.verificationCallSid }),
    unknown: { sid: unknownSid('CA') },
  },
  getCall: { own: (a) => ({ sid: a.callSid }), unknown: { sid: unknownSid('CA') } },
  updateCall: {
    own: (a) => ({ sid: a.callSid }),
    unknown: { sid: unknownSid('CA') },
    body: { url: 'http://127.0.0.1:9/taken-over' },
  },
  listCallRecordings: { own: (a) => ({ sid: a.callSid }), unknown: { sid: unknownSid('CA') } },
  getRecordingMedia: { own: (a) => ({ sid: a.recordingSid }), unknown: { sid: unknownSid('RE') } },
  sendCallInput: { own: (a) => ({ sid: a.callSid }), unknown: { sid: unknownSid('CA') }, body: { digits: '1' } },
  getProxySession: { own: (a) => ({ sid: a.proxySessionSid }), unknown: { sid: unknownSid('KC') } },
  endProxySession: { own: (a) => ({ sid: a.proxySessionSid }), unknown: { sid: unknownSid('KC') } },
  listProxyInteractions: { own: (a) => ({ sid: a.proxySessionSid }), unknown: { sid: unknownSid('KC') } },
  searchLocalNumbers: { notTenant: 'the path names a country of the shared inventory' },
  searchTollFreeNumbers: { notTenant: 'the path names a country of the shared inventory' },
  lookupPhoneNumber: { notTenant: 'the path names any phone number, not a resource' },
  getProblemType: { notTenant: 'a public page about a problem code' },
};

const withPathParameter = loadSpec().operations.filter((op) => op.path.includes('{'));
const isRow = (entry: Row | NotApplicable): entry is Row => 'own' in entry;
const rows = withPathParameter.flatMap((op) => {
  const entry = TABLE[op.operationId];
  return entry && isRow(entry) ? [{ op, row: entry }] : [];
});

it('has a row for every operation of the spec with a path parameter', () => {
  expect(withPathParameter.map((op) => op.operationId).filter((id) => !(id in TABLE))).toEqual([]);
  expect(Object.keys(TABLE).filter((id) => !withPathParameter.some((op) => op.operationId === id))).toEqual([]);
});

describe.each(ENGINES)("another account's resources (%s)", (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, RATE_LIMIT_PER_SECOND: '0' } });
  let a: FuzzAccountOf;
  let b: TestAccount;
  beforeAll(async () => {
    a = await fuzzAccount(t);
    b = await t.newAccount('intruder');
    // A's resources were just made: their webhooks and jobs run on for a moment, and "changes nothing" below needs
    // the account at rest (two reads a second apart alike).
    await waitUntil(
      async () => {
        const first = JSON.stringify(await stateOfAccount(t, a.sid));
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return first === JSON.stringify(await stateOfAccount(t, a.sid));
      },
      45_000,
      'account A at rest',
    );
  });

  const call = (account: { apiKey: string }, method: string, path: string, body?: unknown) =>
    callAs(t, account.apiKey, method, path, body);
  const pathOf = (template: string, values: Record<string, string>) =>
    template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name]));
  const comparable = ({ request_id: _, detail: __, ...rest }: Record<string, unknown>) => rest;

  it.each(rows.map(({ op, row }) => [op.operationId, op, row] as const))(
    '%s: answers 404 not_found for account A’s resource, exactly like an unknown one, and changes nothing',
    async (_id, op, row) => {
      const method = op.method.toUpperCase();
      const path = pathOf(op.path, row.own(a));
      let before = await stateOfAccount(t, a.sid);
      const theirs = await call(b, method, path, row.body);
      // A's background work (a code's delivery, a webhook's retry) may still move a row at any moment: a difference
      // counts only when B's request, made again with A at rest, makes it again (three tries).
      let after = await stateOfAccount(t, a.sid);
      for (let attempt = 1; attempt < 3 && JSON.stringify(after) !== JSON.stringify(before); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        before = await stateOfAccount(t, a.sid);
        await call(b, method, path, row.body);
        after = await stateOfAccount(t, a.sid);
      }
      const unknown = await call(b, method, pathOf(op.path, row.unknown), row.body);
      const theirsBody: any = await theirs.json();
      const unknownBody: any = await unknown.json();
      expect([theirs.status, theirsBody.code]).toEqual([404, 'not_found']);
      expect(theirs.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
      expect(comparable(theirsBody)).toEqual(comparable(unknownBody));
      expect(unknown.status).toBe(404);
      expect(after).toEqual(before);
      // A still has it.
      const get = loadSpec().operations.find((o) => o.path === op.path && o.method === 'get');
      if (get) expect((await call(a, 'GET', pathOf(op.path, row.own(a)))).status).toBe(200);
    },
  );
});
