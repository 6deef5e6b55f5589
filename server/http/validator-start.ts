// express-openapi-validator 5.6 spends most of the compiled server's start (about 1 s of CPU of 1.9) on work whose
// outcome is known before the server starts. Three changes, each leaving what the validator checks per request as it
// was (test/validator-start.test.ts compares the documents it builds both ways):
// - The schema preprocessor looks up every `$ref` to a component schema with Ajv's `getSchema`, which compiles that
//   schema's validator, only to read back the schema it was given (`.schema`) and throw the validator away. The
//   schema is the one Ajv holds under that key: read it from there, without compiling (0.4 s).
// - Checking the spec against the OpenAPI meta-schema compiles that meta-schema (0.3-0.5 s), even with the check
//   off. The compiled server's spec was checked by the build (scripts/build.mjs) with this same class: with
//   `validateApiSpec: false` the class is not built at all.
// - Bundling the spec's `$ref`s (json-schema-ref-parser, 0.2 s) changes nothing in a spec whose references are all
//   local and direct; the build checks that it changes nothing, and `$refParser: BUNDLED_AT_BUILD` skips it.
// Upstream has no option for any of these; drop a change when the library stops doing the work.
import preprocessorModule from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import schemaValidatorModuleRaw from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import frameworkModule from 'express-openapi-validator/dist/framework/index.js';

type Schema = Record<string, unknown>;

interface Preprocessor {
  ajv: { schemas: Record<string, { schema?: unknown } | undefined> };
  resolvedSchemaCache: Map<string, unknown>;
  resolveSchema: (this: Preprocessor, schema: Schema | null | undefined) => unknown;
}
const { SchemaPreprocessor } = preprocessorModule as unknown as {
  SchemaPreprocessor: { prototype: Preprocessor & { resolveSchemaReadsAjv?: true } };
};
const schemaValidatorModule = schemaValidatorModuleRaw as unknown as {
  OpenAPISchemaValidator: (new (opts: { validateApiSpec?: boolean }) => unknown) & { skipsUnused?: true };
};
interface Framework {
  loadSpec: (this: Framework, apiDoc: unknown, $refParser?: unknown) => Promise<unknown>;
}
const { OpenAPIFramework } = frameworkModule as unknown as {
  OpenAPIFramework: { prototype: Framework & { skipsBundled?: true } };
};

/** As the validator's `$refParser` option: the spec is bundled already (the build found bundling changes nothing). */
export const BUNDLED_AT_BUILD = { mode: 'bundle' } as const;

const preprocessor = SchemaPreprocessor.prototype;
if (!preprocessor.resolveSchemaReadsAjv) {
  const resolveSchema = preprocessor.resolveSchema;
  const readsAjv = function (this: Preprocessor, schema: Schema | null | undefined) {
    const ref = schema?.$ref;
    if (typeof ref === 'string' && !this.resolvedSchemaCache.has(ref)) {
      // What `getSchema(ref).schema` returns for a schema Ajv holds under that key, without compiling it.
      const held = this.ajv.schemas[ref];
      if (held && typeof held === 'object') {
        this.resolvedSchemaCache.set(ref, held.schema);
        return held.schema;
      }
    }
    return resolveSchema.call(this, schema);
  };
  // Kept for test/validator-start.test.ts, which compares what both build.
  preprocessor.resolveSchema = Object.assign(readsAjv, { unpatched: resolveSchema });
  preprocessor.resolveSchemaReadsAjv = true;
}

if (!schemaValidatorModule.OpenAPISchemaValidator.skipsUnused) {
  const Validator = schemaValidatorModule.OpenAPISchemaValidator;
  // The framework builds one on every start and calls `validate` only when `validateApiSpec` is true.
  // From source every start checks the spec: the meta-schema depends on the OpenAPI version alone, so it is compiled
  // once per process (0.3-0.5 s of each test server's start), and checks each start's document as before.
  const compiled = new Map<string, InstanceType<typeof Validator>>();
  const lazy = function (opts: { validateApiSpec?: boolean; version?: string }) {
    if (!opts.validateApiSpec) return { validate: () => ({ errors: [] }) };
    const version = String(opts.version);
    let validator = compiled.get(version);
    if (!validator) compiled.set(version, (validator = new Validator(opts)));
    return validator;
  } as unknown as typeof Validator;
  lazy.skipsUnused = true;
  schemaValidatorModule.OpenAPISchemaValidator = lazy;
}

const framework = OpenAPIFramework.prototype;
if (!framework.skipsBundled) {
  const loadSpec = framework.loadSpec;
  framework.loadSpec = function (this: Framework, apiDoc, $refParser) {
    if ($refParser === BUNDLED_AT_BUILD && typeof apiDoc === 'object') return Promise.resolve(apiDoc);
    return loadSpec.call(this, apiDoc, $refParser);
  };
  framework.skipsBundled = true;
}

/** Whether the three changes are in place (checked by a test). */
export function validatorStartInstalled(): boolean {
  return (
    preprocessor.resolveSchemaReadsAjv === true &&
    schemaValidatorModule.OpenAPISchemaValidator.skipsUnused === true &&
    framework.skipsBundled === true
  );
}
