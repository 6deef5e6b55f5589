// Provisioning and address submission take an Idempotency-Key: a retry replays the first answer instead of failing.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { availableNumber } from './fixtures.js';

describe.each(ENGINES)('idempotent number and address creation (%s)', (engine) => {
  const t = useTestServer({ engine });

  it('replays a provisioning retried with the same key, rather than answering 409', async () => {
    const { client } = await t.newAccount();
    const phoneNumber = await availableNumber(client);
    const send = () =>
      client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: phoneNumber },
        params: { header: { 'Idempotency-Key': `provision-${phoneNumber}` } },
      });
    const first = await send();
    const retry = await send();
    expect(first.response.status).toBe(201);
    expect(retry.response.status).toBe(201);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data).toEqual(first.data);
    expect((await client.GET('/v1/incoming-phone-numbers', {})).data!.data).toHaveLength(1);
    const other = await client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: phoneNumber, FriendlyName: 'x' },
      params: { header: { 'Idempotency-Key': `provision-${phoneNumber}` } },
    });
    expect(other.error).toMatchObject({ status: 409, code: 'idempotency_key_reused' });
  });

  it('replays an address submission retried with the same key', async () => {
    const { client } = await t.newAccount();
    const body = {
      customer_name: 'Example Ltd',
      street: '1 Main Street',
      city: 'Sydney',
      region: 'NSW',
      postal_code: '2000',
      iso_country: 'AU',
    };
    const send = () => client.POST('/v1/addresses', { body, params: { header: { 'Idempotency-Key': 'address-1' } } });
    const first = await send();
    const retry = await send();
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data!.sid).toBe(first.data!.sid);
    expect((await client.GET('/v1/addresses', {})).data!.data).toHaveLength(1);
  });
});
