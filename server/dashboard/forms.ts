// Reading urlencoded form fields (strings only: a repeated field counts as absent) and turning field errors into a
// map a view shows beside each field.
import type { Request } from 'express';
import type { FieldError } from '../errors.js';

/** The field's text as submitted, or '' when absent (or not a single string). */
export function field(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** The first message for each field. */
export function byField(problems: readonly FieldError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { field: name, message } of problems) out[name] ??= message;
  return out;
}
