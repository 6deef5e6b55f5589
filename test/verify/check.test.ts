// POST /v1/verify/check and cancel: right and wrong codes, the attempt limit, ended verifications, concurrent
// approvals and tenant isolation.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode } from './flow.js';

describe.each(ENGINES)('checking verification codes (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_VERIFY });

  function expectNotFound({ error, response }: { error?: { code?: string }; response: Response }) {
    expect(response.status).toBe(404);
    expect(error?.code).toBe('not_found');
  }

  async function started() {
    const to = freshNumber();
    const sent = await sendCode(t.account.client, { to, channel: 'sms' });
    const { code } = await deliveredCode(t.account.client, to);
    const wrong = code === '000000' ? '111111' : '000000';
    return { to, sid: sent.sid, code, wrong };
  }

  it('approves the right code once; a later check answers 409 by sid and 404 by number', async () => {
    const v = await started();
    const { data, response } = await check(t.account.client, { verification_sid: v.sid, code: v.code });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ sid: v.sid, status: 'approved', valid: true });
    const bySid = await check(t.account.client, { verification_sid: v.sid, code: v.code });
    expect(bySid.response.status).toBe(409);
    expect(bySid.error?.code).toBe('verification_not_pending');
    expectNotFound(await check(t.account.client, { to: v.to, code: v.code }));
  });

  it('answers a wrong code with 200, status pending and valid false', async () => {
    const v = await started();
    const { data, response } = await check(t.account.client, { to: v.to, code: v.wrong });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ sid: v.sid, status: 'pending', valid: false });
    expect((await check(t.account.client, { to: v.to, code: v.code })).data?.status).toBe('approved');
  });

  it('5 wrong codes end the verification, then even the right code gets 429 max_check_attempts_reached', async () => {
    const v = await started();
    for (let i = 1; i <= 4; i++)
      expect((await check(t.account.client, { to: v.to, code: v.wrong })).data?.status).toBe('pending');
    const fifth = await check(t.account.client, { verification_sid: v.sid, code: v.wrong });
    expect(fifth.data).toMatchObject({ status: 'max_attempts_reached', valid: false });
    for (const body of [
      { verification_sid: v.sid, code: v.code },
      { to: v.to, code: v.code },
    ]) {
      const { error, response } = await check(t.account.client, body);
      expect(response.status).toBe(429);
      expect(error?.code).toBe('max_check_attempts_reached');
      expect(response.headers.get('retry-after')).toBeNull();
    }
    const { data } = await t.account.client.GET('/v1/verify/{sid}', { params: { path: { sid: v.sid } } });
    expect(data?.status).toBe('max_attempts_reached');
  });

  it('approves exactly once when several checks with the right code arrive at the same time', async () => {
    const v = await started();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => check(t.account.client, { verification_sid: v.sid, code: v.code })),
    );
    const statuses = results.map((r) => r.response.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    expect(results.find((r) => r.response.status === 200)?.data?.status).toBe('approved');
  });

  it('counts every wrong code of concurrent checks: five at once end the verification', async () => {
    const v = await started();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => check(t.account.client, { verification_sid: v.sid, code: v.wrong })),
    );
    expect(results.every((r) => r.response.status === 200)).toBe(true);
    expect(results.filter((r) => r.data?.status === 'max_attempts_reached')).toHaveLength(1);
    expect((await check(t.account.client, { verification_sid: v.sid, code: v.code })).response.status).toBe(429);
  });

  it('cancels a pending verification: its code stops working, and a second cancel is a 409', async () => {
    const v = await started();
    const cancel = () =>
      t.account.client.POST('/v1/verify/{sid}', { params: { path: { sid: v.sid } }, body: { status: 'canceled' } });
    expect((await cancel()).data).toMatchObject({ status: 'canceled', valid: false });
    const checked = await check(t.account.client, { verification_sid: v.sid, code: v.code });
    expect(checked.response.status).toBe(409);
    expect(checked.error?.code).toBe('verification_not_pending');
    const again = await cancel();
    expect(again.response.status).toBe(409);
    expect(again.error?.code).toBe('verification_not_pending');
    expect((await t.account.client.GET('/v1/verify/{sid}', { params: { path: { sid: v.sid } } })).data?.status).toBe(
      'canceled',
    );
  });

  it("answers 404 for another account's verification and never shows it the code", async () => {
    const v = await started();
    const other = await t.newAccount('other');
    const path = { params: { path: { sid: v.sid } } };
    expectNotFound(await other.client.GET('/v1/verify/{sid}', path));
    expectNotFound(await other.client.POST('/v1/verify/{sid}', { ...path, body: { status: 'canceled' } }));
    expectNotFound(await check(other.client, { verification_sid: v.sid, code: v.code }));
    expectNotFound(await check(other.client, { to: v.to, code: v.code }));
    expectNotFound(await other.client.GET('/v1/sandbox/verification-codes/{to}', { params: { path: { to: v.to } } }));
    expect((await check(t.account.client, { verification_sid: v.sid, code: v.code })).data?.status).toBe('approved');
  });

  it('answers 404 for a verification that does not exist, by sid and by number', async () => {
    const sid = 'VE' + '0'.repeat(32);
    expectNotFound(await t.account.client.GET('/v1/verify/{sid}', { params: { path: { sid } } }));
    expectNotFound(await check(t.account.client, { verification_sid: sid, code: '123456' }));
    expectNotFound(await check(t.account.client, { to: freshNumber(), code: '123456' }));
  });
});
