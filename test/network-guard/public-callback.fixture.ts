// Fails on purpose (run by guard.test.ts): a message whose status callback points at a public host.
import { expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';

const t = useTestServer({ engine: 'sqlite', env: FAST_PIPELINE });

it('posts a status callback to a public host', async () => {
  const { account, from } = await accountWithNumber(t);
  const body = { from, to: '+14155550123', body: 'x', status_callback: 'https://callbacks.example.com/status' };
  const { data } = await account.client.POST('/v1/messages', { body });
  const db = t.server.services.store.db;
  const attempt = await waitUntil(() =>
    db
      .selectFrom('webhook_attempts')
      .innerJoin('webhook_events', 'webhook_events.id', 'webhook_attempts.event_id')
      .select('webhook_attempts.error')
      .where('webhook_events.resource_sid', '=', data!.sid)
      .executeTakeFirst(),
  );
  // The server saw its delivery refused before any connection was made.
  expect(attempt.error).toContain('network guard');
});
