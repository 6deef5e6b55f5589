// `npm start`: runs the compiled server (dist/, bundled into one module), building it first when it is missing or older
// than its sources.
import { BUNDLE, build, staleReason } from './build.mjs';

const stale = staleReason();
if (stale) {
  console.error(`Building the server (${stale})...`);
  await build();
}
await import(`../dist/${BUNDLE}`);
