// Form fields arrive as strings; turn them into the types the operation's schema declares before validation,
// so one schema serves both encodings (JSON bodies are left untouched: a JSON string "5" stays an error).
import type { NextFunction, Request, Response } from 'express';
import { findOperation } from './spec.js';

type Schema = Record<string, any>;

export function coerceFormBodies(req: Request, _res: Response, next: NextFunction): void {
  if (req.is('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object') {
    // Mounted under /v1 (after the key check), where req.path is relative to it.
    const schema = findOperation(req.method, req.baseUrl + req.path)?.bodySchema;
    if (schema?.properties) req.body = coerceObject(req.body, schema);
  }
  next();
}

function coerceObject(body: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const prop = schema.properties?.[key];
    out[key] = prop ? coerceValue(value, prop) : value;
  }
  return out;
}

function coerceValue(value: unknown, schema: Schema): unknown {
  if (schema.type === 'array') {
    let items = Array.isArray(value) ? value : [value];
    // A list of words may also come space-separated in one field, as Twilio sends `StatusCallbackEvent`; no value of
    // an enum has a space, so other lists (URLs, numbers written with spaces) are left whole.
    if (schema.items?.enum)
      items = items.flatMap((item) => (typeof item === 'string' ? item.split(/\s+/).filter(Boolean) : [item]));
    return schema.items ? items.map((item) => coerceValue(item, schema.items)) : items;
  }
  // A repeated key for a scalar field is left as an array, for the validator to reject by name.
  if (typeof value !== 'string') return value;
  switch (schema.type) {
    case 'integer':
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}
