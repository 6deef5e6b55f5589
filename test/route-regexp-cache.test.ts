// The validator's route lookup compiles each path pattern once, and still matches as path-to-regexp does.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { routeRegexpCacheInstalled } from '../server/http/route-regexp-cache.js';

const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const { pathToRegexp } = requireFromValidator('path-to-regexp') as { pathToRegexp: (p: string, o?: object) => { regexp: RegExp; keys: { name: string }[] } };

describe('route pattern cache', () => {
  it('hands the validator one compiled pattern per path and options', () => {
    expect(routeRegexpCacheInstalled()).toBe(true);
    const a = pathToRegexp('/v1/messages/:sid', { sensitive: false, strict: false });
    expect(pathToRegexp('/v1/messages/:sid', { sensitive: false, strict: false })).toBe(a);
    expect(pathToRegexp('/v1/messages/:sid', { sensitive: true, strict: false })).not.toBe(a);
    expect(a.keys.map((k) => k.name)).toEqual(['sid']);
    expect(a.regexp.exec('/v1/messages/SM123')?.[1]).toBe('SM123');
    expect(a.regexp.exec('/v1/messages/SM123')?.[1]).toBe('SM123');
    expect(a.regexp.exec('/V1/MESSAGES/SM123')?.[1]).toBe('SM123');
    expect(pathToRegexp('/v1/messages/:sid', { sensitive: true, strict: false }).regexp.test('/V1/MESSAGES/SM123')).toBe(false);
  });
});
