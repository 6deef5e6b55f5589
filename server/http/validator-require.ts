// express-openapi-validator's own `require`: its inner modules (which the files beside this one patch or reuse) and
// its dependencies at the versions it resolves, the same module instances the validator itself loads.
import { createRequire } from 'node:module';

export const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
