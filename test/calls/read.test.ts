// GET /v1/calls (filters, pagination), GET /v1/calls/{sid}, a call's recordings and their audio, through the Prism
// contract proxy: only the account's own calls, never the ones placed for Verify.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient, downloadRecording } from '../../client/index.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { insertCall, insertRecording, silentWav, CALLS_NEVER_ANSWERED } from '../support/calls.js';
import type { CallRow } from '../../server/store/schema.js';

const at = (iso: string) => ({ date_created: iso, date_updated: iso });

describe.each(ENGINES)('reading calls (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true, env: CALLS_NEVER_ANSWERED });
  let account: TestAccount;
  let calls: CallRow[];
  beforeAll(async () => {
    account = await t.newAccount();
    calls = [
      await insertCall(t, account.sid, { ...at('2025-06-01T10:00:00.000Z'), to_number: '+14155550101' }),
      await insertCall(t, account.sid, { ...at('2025-06-02T10:00:00.000Z'), status: 'busy', duration: 0 }),
      await insertCall(t, account.sid, {
        ...at('2025-06-03T10:00:00.000Z'),
        direction: 'inbound',
        from_number: '+14155550199',
        status: 'in-progress',
        end_time: null,
        duration: null,
        price: null,
      }),
      await insertCall(t, account.sid, { ...at('2025-06-04T10:00:00.000Z'), to_number: '+14155550101' }),
    ];
    // A call placed for Verify speaks a code: never in the account's call log.
    await insertCall(t, account.sid, { ...at('2025-06-05T10:00:00.000Z'), purpose: 'verification' });
  });

  const sids = (list: { sid: string }[]) => list.map((c) => c.sid);
  const list = async (query: Record<string, unknown>) =>
    (await account.client.GET('/v1/calls', { params: { query } })).data!;

  it('lists the account’s calls newest first, without the ones placed for Verify', async () => {
    const { data, response } = await account.client.GET('/v1/calls');
    expect(response.status).toBe(200);
    expect(data).toEqual({ data: [...calls].reverse().map(expectedView), next_page_token: null });
    expect(t.violations()).toEqual([]);
  });

  it.each([
    ['to', { to: '+14155550101' }, [3, 0]],
    ['from', { from: '+14155550199' }, [2]],
    ['status', { status: 'busy' }, [1]],
    ['direction', { direction: 'inbound' }, [2]],
    ['date_created_after (inclusive)', { date_created_after: '2025-06-02T10:00:00Z' }, [3, 2, 1]],
    ['date_created_before (exclusive)', { date_created_before: '2025-06-02T10:00:00Z' }, [0]],
    [
      'a date range and status together',
      { date_created_after: '2025-06-01T00:00:00Z', date_created_before: '2025-06-05T00:00:00Z', status: 'completed' },
      [3, 0],
    ],
  ] as const)('filters by %s', async (_name, query, expected) => {
    expect(sids((await list(query)).data)).toEqual(expected.map((i) => calls[i].sid));
    expect(t.violations()).toEqual([]);
  });

  it('pages through every call once with page tokens', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await list({ page_size: 3, ...(token ? { page_token: token } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...sids(page.data));
      token = page.next_page_token ?? undefined;
    } while (token);
    expect(seen).toEqual(sids([...calls].reverse()));
    expect(t.violations()).toEqual([]);
  });

  it('fetches one call', async () => {
    const { data, response } = await account.client.GET('/v1/calls/{sid}', {
      params: { path: { sid: calls[2].sid } },
    });
    expect(response.status).toBe(200);
    expect(data).toEqual(expectedView(calls[2]));
    expect(t.violations()).toEqual([]);
  });

  it('answers 404 not_found for a call placed for Verify, as for an unknown one', async () => {
    const verification = await insertCall(t, account.sid, { purpose: 'verification' });
    for (const path of ['/v1/calls/{sid}', '/v1/calls/{sid}/recordings'] as const) {
      const { error, response } = await account.client.GET(path, { params: { path: { sid: verification.sid } } });
      expect([response.status, error?.code]).toEqual([404, 'not_found']);
    }
    const recording = await insertRecording(t, verification);
    const media = await account.client.GET('/v1/recordings/{sid}/media', {
      params: { path: { sid: recording.sid } },
      parseAs: 'arrayBuffer',
    });
    expect(media.response.status).toBe(404);
  });

  it('lists a call’s recordings newest first, with an absolute media_url', async () => {
    const call = calls[0];
    const older = await insertRecording(t, call, { ...at('2025-06-01T10:00:10.000Z'), source: 'record_verb' });
    const newer = await insertRecording(t, call, {
      ...at('2025-06-01T10:00:20.000Z'),
      status: 'processing',
      duration: null,
      audio: null,
    });
    const { data, response } = await account.client.GET('/v1/calls/{sid}/recordings', {
      params: { path: { sid: call.sid } },
    });
    expect(response.status).toBe(200);
    expect(sids(data!.data)).toEqual([newer.sid, older.sid]);
    expect(data!.data[1]).toEqual({
      sid: older.sid,
      account_sid: account.sid,
      call_sid: call.sid,
      status: 'completed',
      source: 'record_verb',
      duration: 1,
      channels: 1,
      start_time: older.start_time,
      price: 0,
      price_unit: 'USD',
      error_code: null,
      media_url: `${t.directUrl}/v1/recordings/${older.sid}/media`,
      date_created: older.date_created,
      date_updated: older.date_updated,
    });
    expect(data!.next_page_token).toBeNull();
    const paged = await account.client.GET('/v1/calls/{sid}/recordings', {
      params: { path: { sid: call.sid }, query: { page_size: 1 } },
    });
    expect(sids(paged.data!.data)).toEqual([newer.sid]);
    expect(paged.data!.next_page_token).toEqual(expect.any(String));
    expect(t.violations()).toEqual([]);
  });

  it('downloads a completed recording’s WAV file with the key, from its media_url', async () => {
    const call = calls[1];
    const recording = await insertRecording(t, call);
    const listed = await account.client.GET('/v1/calls/{sid}/recordings', { params: { path: { sid: call.sid } } });
    const res = await fetch(listed.data!.data[0].media_url, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^audio\/wav/);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(silentWav());
    // Through the contract proxy the answer is checked (status, type) but its bytes come back re-encoded as text,
    // so the bytes are compared on answers straight from the server.
    const proxied = await fetch(`${t.url}/v1/recordings/${recording.sid}/media`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect([proxied.status, proxied.headers.get('content-type')]).toEqual([200, 'audio/wav']);
    await proxied.arrayBuffer();
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
    const typed = await downloadRecording(direct, recording.sid);
    expect(typed.response.status).toBe(200);
    expect(Buffer.from(typed.data!)).toEqual(silentWav());
    expect(t.violations()).toEqual([]);
  });

  it('answers 404 not_found for the audio of a recording not completed', async () => {
    const call = calls[3];
    for (const status of ['processing', 'failed'] as const) {
      const recording = await insertRecording(t, call, { status, audio: null, duration: null });
      const res = await account.client.GET('/v1/recordings/{sid}/media', {
        params: { path: { sid: recording.sid } },
        parseAs: 'arrayBuffer',
      });
      expect(res.response.status).toBe(404);
      expect(res.error).toMatchObject({ code: 'not_found', detail: expect.stringContaining(status) });
    }
  });

  it('answers 401 for a recording’s audio without a key', async () => {
    const recording = await insertRecording(t, calls[2]);
    const res = await fetch(`${t.directUrl}/v1/recordings/${recording.sid}/media`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 404 for another account’s call, its recordings and their audio, as for unknown ones', async () => {
    const recording = await insertRecording(t, calls[0]);
    const other = await t.newAccount();
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: other.apiKey });
    const unknownCall = `CA${'0'.repeat(32)}`;
    for (const sid of [calls[0].sid, unknownCall]) {
      expect((await direct.GET('/v1/calls/{sid}', { params: { path: { sid } } })).response.status).toBe(404);
      expect((await direct.GET('/v1/calls/{sid}/recordings', { params: { path: { sid } } })).response.status).toBe(404);
    }
    for (const sid of [recording.sid, `RE${'0'.repeat(32)}`]) {
      const res = await fetch(`${t.directUrl}/v1/recordings/${sid}/media`, {
        headers: { authorization: `Bearer ${other.apiKey}` },
      });
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).code).toBe('not_found');
    }
    expect((await direct.GET('/v1/calls')).data!.data).toEqual([]);
  });
});

function expectedView(row: CallRow) {
  return {
    sid: row.sid,
    account_sid: row.account_sid,
    from: row.from_number,
    to: row.to_number,
    status: row.status,
    direction: row.direction,
    parent_call_sid: row.parent_call_sid,
    answered_by: row.answered_by,
    url: row.url,
    method: row.method,
    status_callback: row.status_callback,
    duration: row.duration,
    start_time: row.start_time,
    end_time: row.end_time,
    price: row.price,
    price_unit: row.price_unit,
    error_code: row.error_code,
    error_message: row.error_message,
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}

describe.each(ENGINES)('PUBLIC_URL (%s)', (engine) => {
  const t = useTestServer({ engine, env: { PUBLIC_URL: 'https://voice.example.com/' } });

  it('is the base of media_url, without its trailing slash', async () => {
    const account = await t.newAccount();
    const recording = await insertRecording(t, await insertCall(t, account.sid));
    const { data } = await account.client.GET('/v1/calls/{sid}/recordings', {
      params: { path: { sid: recording.call_sid } },
    });
    expect(data!.data[0].media_url).toBe(`https://voice.example.com/v1/recordings/${recording.sid}/media`);
  });
});
