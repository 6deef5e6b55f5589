// The validator's route lookup compiles each path pattern once, and still matches as path-to-regexp does. The cache
// replaces an export inside express-openapi-validator: these tests fail when the library stops calling it that way.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeRegexpCacheInstalled } from '../server/http/route-regexp-cache.js';

type Compiled = { regexp: RegExp; keys: { name: string }[] };
const validatorEntry = createRequire(import.meta.url).resolve('express-openapi-validator');
const requireFromValidator = createRequire(validatorEntry);
const { pathToRegexp } = requireFromValidator('path-to-regexp') as {
  pathToRegexp: (p: string, o?: object) => Compiled;
};

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
    const sensitive = pathToRegexp('/v1/messages/:sid', { sensitive: true, strict: false });
    expect(sensitive.regexp.test('/V1/MESSAGES/SM123')).toBe(false);
  });

  it("is what the validator's route lookup calls: it reads pathToRegexp from the module's exports at each call", () => {
    const lookup = path.join(path.dirname(validatorEntry), 'middlewares/openapi.metadata.js');
    const source = fs.readFileSync(lookup, 'utf8');
    expect(source).toContain('require("path-to-regexp")');
    expect(source).toContain('(0, path_to_regexp_1.pathToRegexp)(expressRoute, pathOpts)');
  });
});
