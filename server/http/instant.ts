// Date-time query parameters: the schema's `date-time` format accepts any digits in range of their pattern (a 30
// February, a leap second), which Date then moves to another day or cannot print. Only instants that exist pass.
import { errors } from '../errors.js';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `value` as a canonical ISO instant (UTC, ms); a 400 naming `field` when it is not a date-time that exists. */
export function instantParam(field: string, value: string): string {
  const parts = DATE_TIME.exec(value);
  const fields = parts?.slice(1, 7).map(Number);
  const at = Date.parse(value);
  if (!fields || Number.isNaN(at)) throw errors.invalidField(field, 'must be an ISO 8601 date-time');
  const [year, month, day, hour, minute, second] = fields;
  // Date.UTC carries an out-of-range field over (30 February → 2 March): a date that exists reads back the same.
  const wall = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const exists =
    wall.getUTCFullYear() === year &&
    wall.getUTCMonth() === month - 1 &&
    wall.getUTCDate() === day &&
    wall.getUTCHours() === hour &&
    wall.getUTCMinutes() === minute &&
    wall.getUTCSeconds() === second;
  if (!exists) throw errors.invalidField(field, 'is not a date and time that exists');
  return new Date(at).toISOString();
}

/** The list filters' date range, checked and canonical. */
export function createdRange<T extends { createdAfter?: string; createdBefore?: string }>(filters: T): T {
  return {
    ...filters,
    createdAfter: filters.createdAfter && instantParam('date_created_after', filters.createdAfter),
    createdBefore: filters.createdBefore && instantParam('date_created_before', filters.createdBefore),
  };
}
