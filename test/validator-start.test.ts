// The validator's start skips work whose outcome is known (server/http/validator-start.ts): these tests show that it
// builds the same documents either way from this spec, so that it validates every request as before, and fail when
// the library stops calling what the changes replace.
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUNDLED_AT_BUILD, validatorStartInstalled } from '../server/http/validator-start.js';
import { loadSpec } from '../server/http/spec.js';

type Doc = Record<string, any>;
const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const { SchemaPreprocessor } = requireFromValidator('./middlewares/parsers/schema.preprocessor.js');
const { OpenApiSpecLoader } = requireFromValidator('./framework/openapi.spec.loader.js');
const { AjvOptions } = requireFromValidator('./framework/ajv/options.js');
const { OpenApiValidator } = requireFromValidator('./openapi.validator.js');
const { OpenAPISchemaValidator } = requireFromValidator('./framework/openapi.schema.validator.js');

/** The options the validator's preprocessor gets from server/app.ts's settings. */
function preprocessorOptions(): Doc {
  const validator = new OpenApiValidator({
    apiSpec: {},
    validateRequests: { allErrors: true },
    validateResponses: { allErrors: true },
    validateSecurity: false,
    fileUploader: false,
  });
  return { ajv: new AjvOptions(validator.options).preprocessor, responses: validator.options.validateResponses };
}

describe("the validator's start", () => {
  it('is changed in its three places', () => {
    expect(validatorStartInstalled()).toBe(true);
  });

  it('loads the same document and routes without bundling or checking the spec again', async () => {
    const load = (options: Doc) =>
      new OpenApiSpecLoader({ apiDoc: structuredClone(loadSpec().document), ...options }).load();
    const full = await load({ validateApiSpec: true, $refParser: { mode: 'bundle' } });
    const skipped = await load({ validateApiSpec: false, $refParser: BUNDLED_AT_BUILD });
    expect(skipped.routes.length).toBe(loadSpec().operations.length);
    expect(isDeepStrictEqual(skipped.apiDoc, full.apiDoc)).toBe(true);
    expect(isDeepStrictEqual(skipped.routes, full.routes)).toBe(true);
    // Bundling changes nothing in this spec (what scripts/build.mjs checks before the start skips it).
    const $RefParser = requireFromValidator('@apidevtools/json-schema-ref-parser');
    const bundled = await $RefParser.bundle(structuredClone(loadSpec().document));
    expect(isDeepStrictEqual(bundled, loadSpec().document)).toBe(true);
  });

  it('preprocesses the spec into the same request and response documents without compiling its schemas', () => {
    const { ajv, responses } = preprocessorOptions();
    const patched = SchemaPreprocessor.prototype.resolveSchema;
    let compiled = 0;
    const run = () => {
      const preprocessor = new SchemaPreprocessor(structuredClone(loadSpec().document), ajv, responses);
      const compile = preprocessor.ajv._compileSchemaEnv;
      preprocessor.ajv._compileSchemaEnv = function (...args: unknown[]) {
        compiled++;
        return compile.apply(this, args);
      };
      return preprocessor.preProcess();
    };
    const now = run();
    expect(compiled).toBe(0);
    SchemaPreprocessor.prototype.resolveSchema = patched.unpatched;
    let before;
    try {
      before = run();
    } finally {
      SchemaPreprocessor.prototype.resolveSchema = patched;
    }
    // The library's own lookup compiles a validator for each component schema it resolves.
    expect(compiled).toBeGreaterThan(50);
    expect(isDeepStrictEqual(now.apiDoc, before.apiDoc)).toBe(true);
    expect(isDeepStrictEqual(now.apiDocRes, before.apiDocRes)).toBe(true);
  });
  it('compiles the OpenAPI meta-schema once per version and process, and still checks each document with it', () => {
    const version = loadSpec().document.openapi;
    const first = new OpenAPISchemaValidator({ validateApiSpec: true, version });
    expect(new OpenAPISchemaValidator({ validateApiSpec: true, version })).toBe(first);
    expect(first.validate(structuredClone(loadSpec().document)).errors).toEqual([]);
    const untitled = { openapi: version, info: { version: '1' }, paths: {} };
    expect(first.validate(untitled).errors).toContainEqual(
      expect.objectContaining({ instancePath: '/info', params: { missingProperty: 'title' } }),
    );
  });
});
