// GET /v1/messages (pagination and filters) and DELETE /v1/messages/{sid}.
import { describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';

describe.each(ENGINES)('listing and deleting messages (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE, contract: true });

  async function accountWithMessages(n: number, to = '+14155550123') {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const sids: string[] = [];
    for (let i = 0; i < n; i++)
      sids.push((await account.client.POST('/v1/messages', { body: { from, to, body: `m${i}` } })).data!.sid);
    return { account, from, sids };
  }

  it('pages through every message newest first, without repeats', async () => {
    const { account, sids } = await accountWithMessages(7);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const { data } = await account.client.GET('/v1/messages', {
        params: { query: { page_size: 3, page_token: token } },
      });
      expect(data!.data.length).toBeLessThanOrEqual(3);
      seen.push(...data!.data.map((m) => m.sid));
      token = data!.next_page_token ?? undefined;
    } while (token);
    expect(seen).toEqual([...sids].reverse());
    expect(t.violations()).toEqual([]);
  });

  it('filters by to, from, status, direction and creation time', async () => {
    const { account, from, sids } = await accountWithMessages(2, '+14155550111');
    const other = await giveNumber(t, account);
    const late = (
      await account.client.POST('/v1/messages', { body: { from: other, to: '+14155550222', body: 'late' } })
    ).data!;
    await waitForStatus(account.client, late.sid, 'delivered');
    const list = async (query: Record<string, string>) =>
      (await account.client.GET('/v1/messages', { params: { query: query as any } })).data!.data.map((m) => m.sid);

    expect(await list({ to: '+14155550111' })).toEqual([...sids].reverse());
    expect(await list({ from: other })).toEqual([late.sid]);
    expect(await list({ status: 'delivered', from: other })).toEqual([late.sid]);
    expect(await list({ direction: 'inbound' })).toEqual([]);
    expect(await list({ direction: 'outbound-api', to: '+14155550222' })).toEqual([late.sid]);
    expect(await list({ date_created_after: late.date_created })).toEqual([late.sid]);
    expect(await list({ date_created_before: late.date_created, from })).toEqual([...sids].reverse());
    expect(t.violations()).toEqual([]);
  });

  it("lists only the caller's messages", async () => {
    await accountWithMessages(2);
    const empty = await t.newAccount();
    expect((await empty.client.GET('/v1/messages')).data).toEqual({ data: [], next_page_token: null });
  });

  it('deletes a message in a final state: 204, then 404', async () => {
    const { account, sids } = await accountWithMessages(1);
    await waitForStatus(account.client, sids[0], 'delivered');
    const { response } = await account.client.DELETE('/v1/messages/{sid}', { params: { path: { sid: sids[0] } } });
    expect(response.status).toBe(204);
    const gone = await account.client.GET('/v1/messages/{sid}', { params: { path: { sid: sids[0] } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toMatchObject({ code: 'not_found', detail: `No message ${sids[0]} in your account.` });
    expect(t.violations()).toEqual([]);
  });

  it('deletes a message once when four DELETEs come at once: one 204, then 404s, never a 409', async () => {
    for (let round = 0; round < 3; round++) {
      const { account, sids } = await accountWithMessages(1);
      await waitForStatus(account.client, sids[0], 'delivered');
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          account.client.DELETE('/v1/messages/{sid}', { params: { path: { sid: sids[0] } } }),
        ),
      );
      expect(answers.map((a) => a.response.status).sort()).toEqual([204, 404, 404, 404]);
    }
  });

  it('cancels a scheduled message four DELETEs ask at once: 204s (404s once one deleted it), no 409', async () => {
    const { account, from } = await accountWithMessages(0);
    const sendAt = new Date(Date.now() + 3600_000).toISOString();
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'later', send_at: sendAt },
    });
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        account.client.DELETE('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } }),
      ),
    );
    // One cancels it; one that reads it canceled deletes it, as a DELETE of a canceled message does; after that, 404.
    const statuses = answers.map((a) => a.response.status);
    expect(statuses).toContain(204);
    for (const status of statuses) expect([204, 404]).toContain(status);
  });

  it('answers 409 message_in_flight for a message not in a final state yet', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    // The slow magic number keeps the message `sent` for a while.
    const { data } = await account.client.POST('/v1/messages', { body: { from, to: '+15005550004', body: 'slow' } });
    await waitForStatus(account.client, data!.sid, 'sent');
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
    const { error, response } = await direct.DELETE('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } });
    expect(response.status).toBe(409);
    expect(error).toMatchObject({ code: 'message_in_flight' });
  });

  it("answers 404 when deleting another account's message", async () => {
    const { sids } = await accountWithMessages(1);
    const other = await t.newAccount();
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: other.apiKey });
    const { error, response } = await direct.DELETE('/v1/messages/{sid}', { params: { path: { sid: sids[0] } } });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ code: 'not_found', detail: `No message ${sids[0]} in your account.` });
  });
});
