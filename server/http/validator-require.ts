// express-openapi-validator's own `require`: its dependencies at the versions it resolves (route-lookup.ts compiles
// paths with its path-to-regexp). Its inner modules, which the files beside this one change, are imported by their
// paths in the package instead, so that the bundle of `npm start` holds them once, as the validator's own.
import { createRequire } from 'node:module';

export const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
