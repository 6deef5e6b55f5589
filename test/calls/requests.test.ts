// The pure checks of the calls API's bodies and the new call's row (server/calls/requests.ts).
import { describe, expect, it } from 'vitest';
import { checkUpdate, exactlyOne, newCallRow } from '../../server/calls/requests.js';
import { ApiError } from '../../server/errors.js';

const fieldOf = (run: () => void) => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as ApiError).fieldErrors?.map((e) => e.field) ?? [];
  }
  return null;
};

describe('exactlyOne', () => {
  it('names the first field when neither is given, the second when both are, nothing for one', () => {
    expect(fieldOf(() => exactlyOne({}, 'url', 'twiml'))).toEqual(['url']);
    expect(fieldOf(() => exactlyOne({ url: 'u', twiml: 't' }, 'url', 'twiml'))).toEqual(['twiml']);
    expect(fieldOf(() => exactlyOne({ twiml: 't' }, 'url', 'twiml'))).toBeNull();
  });
});

describe('checkUpdate', () => {
  it.each([
    [{ status: 'completed' }, null],
    [{ url: 'https://a.example/x', method: 'GET' }, null],
    [{ twiml: '<Response/>' }, null],
    [{}, []],
    [{ method: 'GET' }, ['method']],
    [{ status: 'canceled', url: 'https://a.example/x' }, ['url']],
    [{ url: 'https://a.example/x', twiml: '<Response/>' }, ['twiml']],
    [{ twiml: '<Response/>', method: 'POST' }, ['method']],
  ] as const)('%j: refused naming %j', (body, fields) => {
    expect(fieldOf(() => checkUpdate(body as Parameters<typeof checkUpdate>[0]))).toEqual(fields);
  });
});

describe('newCallRow', () => {
  const at = '2025-06-02T11:00:04.000Z';

  it('takes the spec defaults, POST for a url, and no method for inline instructions', () => {
    const byUrl = newCallRow('AC1', 'CA1', at, { from: '+1', to: '+2', url: 'https://a.example/v' });
    expect(byUrl).toMatchObject({
      status: 'queued',
      direction: 'outbound-api',
      purpose: 'api',
      method: 'POST',
      twiml: null,
      record: 0,
      recording_channels: 1,
      timeout: 60,
      time_limit: 14400,
      price_unit: 'USD',
      step: 0,
      machine: null,
      status_callback_events: null,
      date_created: at,
      date_updated: at,
    });
    expect(newCallRow('AC1', 'CA2', at, { from: '+1', to: '+2', twiml: '<Response/>' }).method).toBeNull();
  });

  it('keeps each status_callback_event once, space-separated, and dual recordings as 2 channels', () => {
    const row = newCallRow('AC1', 'CA3', at, {
      from: '+1',
      to: '+2',
      twiml: '<Response/>',
      record: true,
      recording_channels: 'dual',
      status_callback_event: ['completed', 'ringing', 'completed'],
    });
    expect(row).toMatchObject({ record: 1, recording_channels: 2, status_callback_events: 'completed ringing' });
  });
});
