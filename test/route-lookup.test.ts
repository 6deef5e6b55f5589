// The validator's route lookup goes through server/http/route-lookup.ts, which replaces an export inside
// express-openapi-validator: these tests fail when the library stops calling it that way, and show the validator still
// matches, refuses a wrong method and misses an unknown path as it did.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeLookupInstalled } from '../server/http/route-lookup.js';
import { useTestServer } from './support/server.js';

const validatorDir = path.dirname(createRequire(import.meta.url).resolve('express-openapi-validator'));

describe('route lookup', () => {
  const t = useTestServer({ engine: 'sqlite' });

  it("is what the validator builds its metadata middleware with: it reads the module's export at each use", () => {
    expect(routeLookupInstalled()).toBe(true);
    const metadata = fs.readFileSync(path.join(validatorDir, 'middlewares/openapi.metadata.js'), 'utf8');
    expect(metadata).toContain('exports.applyOpenApiMetadata = applyOpenApiMetadata;');
    const index = fs.readFileSync(path.join(validatorDir, 'middlewares/index.js'), 'utf8');
    expect(index).toContain('get: function () { return openapi_metadata_1.applyOpenApiMetadata; }');
    const validator = fs.readFileSync(path.join(validatorDir, 'openapi.validator.js'), 'utf8');
    expect(validator).toContain('return middlewares.applyOpenApiMetadata(context, responseApiDoc);');
  });

  it('matches a route with its path parameter, answers 405 to a method it lacks and 404 to no route', async () => {
    const headers = { authorization: `Bearer ${t.account.apiKey}` };
    const lookup = await fetch(`${t.directUrl}/v1/lookups/phone-numbers/%2B14155550123?x=1`, { headers });
    expect(lookup.status).toBe(400);
    const found = await fetch(`${t.directUrl}/v1/lookups/phone-numbers/%2B14155550123`, { headers });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { phone_number: string }).phone_number).toBe('+14155550123');
    const wrong = await fetch(`${t.directUrl}/v1/lookups/phone-numbers/%2B14155550123`, { method: 'DELETE', headers });
    expect(wrong.status).toBe(405);
    const missing = await fetch(`${t.directUrl}/v1/lookups/nothing-here/at-all`, { headers });
    expect(missing.status).toBe(404);
  });
});
