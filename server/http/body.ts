// Reading request bodies: JSON and forms, within limits, mounted after the API key check so that no body is read,
// decompressed or parsed for a caller without a key. Every failure goes to next() for the problem middleware.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { errors } from '../errors.js';
import { coerceFormBodies } from './form-body.js';
import { findOperation } from './spec.js';

const BODY_LIMIT = '1mb';
/** Form fields per body (body-parser's parameterLimit). */
export const MAX_FORM_FIELDS = 2000;
/** Nesting of objects and arrays in a body, JSON or form (`a[b][c]=`); the API's own bodies need three. */
export const MAX_BODY_DEPTH = 32;
export const FORM = /^application\/x-www-form-urlencoded\b/i;

/**
 * Whether `value` nests objects and arrays more than `max` levels deep. The recursion stops at `max` levels, so it
 * never goes deeper than that whatever the body; a wide array is walked by a loop.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, max - 1)) return true;
  } else {
    for (const key in value) {
      if (Object.hasOwn(value, key) && nestedDeeperThan((value as Record<string, unknown>)[key], max - 1)) return true;
    }
  }
  return false;
}

/**
 * Where `value` (a body no deeper than MAX_BODY_DEPTH) holds text that is not well-formed Unicode, a lone surrogate
 * (JSON's `"\ud800"`), in a key or a value: the field's path (`body`, `media_url[0]`) and the surrogate's code point,
 * or null. Such text cannot be stored as it came: SQLite keeps bytes that are no UTF-8 and reads them back as three
 * replacement characters, PostgreSQL keeps one, and the answer to the request would echo neither.
 */
export function illFormedText(value: unknown): { path: string; codePoint: number } | null {
  const found = loneSurrogateIn(value);
  if (!found) return null;
  // The path is written only for the body that has one (most have none): from the outermost field in.
  let path = '';
  for (const part of found.path.reverse()) path += typeof part === 'number' ? `[${part}]` : path ? `.${part}` : part;
  return { path, codePoint: found.codePoint };
}

/** The first lone surrogate in `value` and the fields that lead to it, innermost first. */
function loneSurrogateIn(value: unknown): { path: (string | number)[]; codePoint: number } | null {
  if (typeof value === 'string') return loneSurrogate(value);
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateIn(value[i]);
      if (found) {
        found.path.push(i);
        return found;
      }
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const found = loneSurrogate(key) ?? loneSurrogateIn((value as Record<string, unknown>)[key]);
    if (found) {
      found.path.push(key);
      return found;
    }
  }
  return null;
}

// With the `u` flag a surrogate pair is one code point (not in Cs): only a lone surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;

/** The first lone surrogate of `text`, or null. */
function loneSurrogate(text: string): { path: (string | number)[]; codePoint: number } | null {
  const found = LONE_SURROGATE.exec(text);
  return found ? { path: [], codePoint: found[0].charCodeAt(0) } : null;
}

/**
 * Refuses a parsed body nested too deeply before the validator, the services or JSON.stringify recurse into it, and
 * one holding text that is not well-formed Unicode.
 */
function checkBody(req: Request, _res: Response, next: NextFunction): void {
  if (nestedDeeperThan(req.body, MAX_BODY_DEPTH)) return next(errors.tooDeep(MAX_BODY_DEPTH));
  const illFormed = illFormedText(req.body);
  next(illFormed ? errors.illFormedText(illFormed.path, illFormed.codePoint) : undefined);
}

/** What an empty body should have been: a JSON object with the operation's required fields, named. */
function emptyBodyHint(required: unknown): string {
  const names = Array.isArray(required) ? required.map((name) => `\`${String(name)}\``) : [];
  const fields = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  const object = fields ? `a JSON object with ${fields}` : 'a JSON object';
  return `The body is empty: send ${object} (Content-Type: application/json), or a form.`;
}

/**
 * Reads the body only of a request to an operation that takes one: a body sent to an unknown route, with a method
 * the path does not take, or to a GET, is left unread, and the validator answers 404 or 405 whatever it holds.
 * One middleware calling the parsers in turn (a router of four layers cost the POST measurably more).
 */
export function readBody(): RequestHandler {
  const json = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  // body-parser 2 takes `depth` (qs's, with strictDepth: deeper is an error); its types do not list it yet.
  const formOptions = { extended: true, limit: BODY_LIMIT, parameterLimit: MAX_FORM_FIELDS, depth: MAX_BODY_DEPTH };
  const form = express.urlencoded(formOptions);
  return (req, res, next) => {
    // No framing of a body at all (most GETs): nothing to read, and no operation to look up.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return next();
    // Mounted under /v1, where req.path is relative to it.
    const bodySchema = findOperation(req.method, req.baseUrl + req.path)?.bodySchema;
    if (!bodySchema) return next();
    // Every body the spec takes is required: an empty one is no JSON object (body-parser would make it `{}`). An empty
    // form is a form of no fields, told what it lacks by the validator.
    if (req.headers['content-length'] === '0' && !FORM.test(req.headers['content-type'] ?? '')) {
      return next(errors.invalidBody(emptyBodyHint(bodySchema.required)));
    }
    // Cut off while the key was checked: body-parser would take an aborted request for one already read.
    if (req.readableAborted && !req.complete) return next(errors.bodyCutShort());
    json(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (!FORM.test(req.headers['content-type'] ?? '')) return checkBody(req, res, next);
      // The parser's error goes on to the problem middleware: coercing after it would leave req.body undefined.
      form(req, res, (formErr?: unknown) =>
        formErr ? next(formErr) : coerceFormBodies(req, res, () => checkBody(req, res, next)),
      );
    });
  };
}
