// The common first mistakes answer a 400 whose detail names the fix, and queries work as curl sends them.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { expectProblem } from '../support/raw-http.js';

describe.each(ENGINES)('mistakes and their fixes (%s)', (engine) => {
  const t = useTestServer({ engine });
  const auth = () => ({ authorization: `Bearer ${t.account.apiKey}` });

  it('takes a timestamp filter with raw colons, as curl sends it', async () => {
    const res = await fetch(`${t.url}/v1/messages?date_created_after=2026-01-01T00:00:00Z`, { headers: auth() });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [], next_page_token: null });
  });

  it('says to encode + as %2B when a number in a query arrives with a leading space', async () => {
    const res = await fetch(`${t.url}/v1/messages?to=+14155550123`, { headers: auth() });
    const problem = await expectProblem(res, 400, 'invalid_request');
    expect(problem.detail).toContain('encode it as %2B');
  });

  it('says to encode + as %2B when a number in a form body arrives with a leading space', async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'from=+14155550100&to=%2B14155550123&body=hi&status_callback=https://app.example.com/s',
    });
    const problem = await expectProblem(res, 400, 'invalid_request');
    expect(problem.detail).toContain('encode it as %2B');
  });

  it("says field names are lowercase to Twilio's From, To and Body", async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ From: '+14155550100', To: '+14155550123', Body: 'hi' }),
    });
    const problem = await expectProblem(res, 400, 'invalid_request');
    expect(problem.detail).toContain('Field names are lowercase here: `from`, `to`, `body`.');
  });

  it('says to set Content-Type when JSON comes as a form, as curl -d sends it', async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ from: '+14155550100', to: '+14155550123', body: 'hi' }),
    });
    const problem = await expectProblem(res, 400, 'invalid_request');
    expect(problem.detail).toContain('set Content-Type: application/json');
  });

  it('says what to send for an empty JSON object', async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{}',
    });
    const problem = await expectProblem(res, 400, 'invalid_request');
    expect(problem.detail).toContain('Send a JSON object with `from`, `to`.');
  });

  it('refuses an empty body as no JSON object, even where every field is optional', async () => {
    const res = await fetch(`${t.url}/v1/account`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '',
    });
    const problem = await expectProblem(res, 400, 'invalid_body');
    expect(problem.detail).toBe('The body is empty: send a JSON object (Content-Type: application/json), or a form.');
  });

  it('names the fields an empty body lacks where the operation requires some', async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '',
    });
    const problem = await expectProblem(res, 400, 'invalid_body');
    expect(problem.detail).toBe(
      'The body is empty: send a JSON object with `from` and `to` (Content-Type: application/json), or a form.',
    );
  });
});
