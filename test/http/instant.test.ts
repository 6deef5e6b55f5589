// Date-time query parameters: instants that exist pass in canonical form; days and seconds that do not are a 400.
import { describe, expect, it } from 'vitest';
import { instantParam } from '../../server/http/instant.js';
import { ApiError } from '../../server/errors.js';

describe('instantParam', () => {
  it.each([
    ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00.000Z'],
    ['2024-02-29T23:59:59.5Z', '2024-02-29T23:59:59.500Z'],
    ['2026-11-25T10:00:00+02:00', '2026-11-25T08:00:00.000Z'],
  ])('reads %s as %s', (value, iso) => {
    expect(instantParam('date_created_after', value)).toBe(iso);
  });

  it.each(['2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2026-11-25T23:59:60Z', '2026-11-25T24:00:00Z', 'soon'])(
    'refuses %s naming the parameter',
    (value) => {
      let thrown: unknown;
      try {
        instantParam('date_created_before', value);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).fieldErrors?.[0].field).toBe('date_created_before');
    },
  );
});
