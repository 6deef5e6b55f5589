// The order in which the workers take the test files: the longest known first, so that no long file starts last
// and runs alone at the end. Vitest orders by its cache of last durations, which a fresh clone (CI) does not have: it
// then orders by file size, which says little about a file's time (the crash tests are short files).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files, longest first: seconds in a full run on both engines (two workers, load average 1-4 on 2 CPUs,
 * 2026-11-26 17:41). Measure again when a file grows long.
 */
const LONGEST_FIRST = [
  'test/cli.test.ts', // 58
  'test/smpp/carrier-resilience.test.ts', // 54
  'test/fuzz/fuzz.test.ts', // 45
  'test/calls/engine-crash-200.test.ts', // 37
  'test/proxy/message-relay-crash.test.ts', // 33
  'test/dashboard/secret-sandbox.test.ts', // 30
  'test/calls/engine-crash.test.ts', // 30
  'test/dashboard/numbers.test.ts', // 30
  'test/messages/crash.test.ts', // 29
  'test/docs/docs.test.ts', // 25
  'test/system/shutdown.test.ts', // 23
  'test/messages/cluster.test.ts', // 22
  'test/ssrf/request-time.test.ts', // 21
  'test/idempotency/crash-window.test.ts', // 21
  'test/config.test.ts', // 20
  'test/dashboard/logs.test.ts', // 20
  'test/dashboard/addresses.test.ts', // 17
  'test/numbers/inventory.test.ts', // 17
  'test/verify/voice-call.test.ts', // 15
  'test/client-package.test.ts', // 15
  'test/limits/rate-limit.test.ts', // 14
];

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    // A stable sort: the files not listed keep vitest's order after the listed ones.
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map((x) => x.spec);
  }
}
