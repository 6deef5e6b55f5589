// Shared by the call engine's tests: a fast sandbox network, and reading calls and their events back.
import type { TestAccount, TestServer } from '../support/server.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';

/** Calls play 50 times faster than real time and ring for one second of call time (20 ms). */
export const FAST_CALLS = { SANDBOX_CALL_SPEED: '50', SANDBOX_CALL_RING_MS: '1000' };

export const FINAL_STATUSES = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

/** The call once it has reached a final status (through GET /v1/calls/{sid}). */
export async function finalCall(account: TestAccount, sid: string, timeoutMs = 20_000) {
  return waitUntil(
    async () => {
      const { data } = await account.client.GET('/v1/calls/{sid}', { params: { path: { sid } } });
      return data && FINAL_STATUSES.includes(data.status) ? data : undefined;
    },
    timeoutMs,
    `call ${sid} to end`,
  );
}

/** The event types received for `sid`, once its final event is in (events of one call arrive in order). */
export async function eventsOf(receiver: WebhookReceiver, sid: string): Promise<string[]> {
  const types = () => receiver.received.filter((w) => w.json?.data?.sid === sid).map((w) => w.json.type as string);
  await waitUntil(
    async () => types().some((t) => FINAL_STATUSES.includes(t.slice('call.'.length))),
    20_000,
    `${sid}'s final event`,
  );
  return types();
}

/** The stored row of a call (what the API does not show: peer, machine, step). */
export function callRow(t: TestServer, sid: string) {
  return t.server.services.store.db.selectFrom('calls').selectAll().where('sid', '=', sid).executeTakeFirstOrThrow();
}

export const sayThenHangup = (text = 'Hello there') => `<Response><Say>${text}</Say><Hangup/></Response>`;

/** Provisions a US local number for the account with these voice settings (PascalCase, as the API takes them). */
export async function holdNumber(
  account: Pick<TestAccount, 'client'>,
  voice: { VoiceUrl?: string; VoiceMethod?: 'GET' | 'POST'; StatusCallback?: string } = {},
): Promise<string> {
  const { data } = await account.client.GET('/v1/available-phone-numbers/{country}/Local', {
    params: { path: { country: 'US' }, query: { page_size: 50 } },
  });
  for (const candidate of data?.data ?? []) {
    const { data: number } = await account.client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: candidate.phone_number, ...voice },
    });
    if (number) return number.phone_number;
  }
  throw new Error('no number could be provisioned');
}
