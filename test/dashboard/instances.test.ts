// Dashboard sessions live in the database: two instances on one PostgreSQL database accept the same session and
// CSRF token, and a key revoked on one ends its sessions on the other at their next request.
import { afterAll, describe, expect, it } from 'vitest';
import { start, type RunningServer } from '../../server/app.js';
import { ENGINES, startTestServer, type TestServer } from '../support/server.js';
import { signInCookie } from '../support/dashboard.js';

describe.runIf(ENGINES.includes('postgres'))('dashboard sessions across two instances (postgres)', () => {
  let first: TestServer | undefined;
  let second: RunningServer | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.stop();
  });

  it('accepts a session and its CSRF token on both, and ends it on both when its key is revoked', async () => {
    first = await startTestServer('postgres');
    second = await start({ ...first.config, port: 0 });
    const account = await first.newAccount();
    const created = (await first.server.services.accounts.createKey(account.sid))!;
    const cookie = (await signInCookie(first.directUrl, created.api_key)).split(';')[0];

    const page = await fetch(`${second.url}/dashboard/settings/api-keys`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
    const posted = await fetch(`${second.url}/dashboard/settings/api-keys`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }),
    });
    expect(posted.status).toBe(201);

    await first.server.services.accounts.revokeKey(created.key_sid);
    const after = await fetch(`${second.url}/dashboard/settings/api-keys`, { headers: { cookie }, redirect: 'manual' });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/dashboard/sign-in');
  });
});
