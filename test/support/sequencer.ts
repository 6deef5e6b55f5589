// The order in which the two workers take the test files: the longest known first, so that no long file starts last
// and runs alone at the end. Vitest orders by its cache of last durations, which a fresh clone (CI) does not have: it
// then orders by file size, which says little about a file's time (the crash tests are short files).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files, longest first: seconds in a full run on both engines (load average 10-15 on 2 CPUs,
 * 2026-11-26), before their job leases were shortened. Measure again when a file grows long.
 */
const LONGEST_FIRST = [
  'test/smpp/carrier-resilience.test.ts', // 164
  'test/messages/crash.test.ts', // 138
  'test/idempotency/crash-window.test.ts', // 129
  'test/proxy/pool.test.ts', // 95
  'test/dashboard/numbers.test.ts', // 86
  'test/ssrf/request-time.test.ts', // 85
  'test/cli.test.ts', // 84
  'test/dashboard/secret-sandbox.test.ts', // 83
  'test/webhooks/robust.test.ts', // 81
  'test/docs/docs.test.ts', // 81
  'test/fuzz/fuzz.test.ts', // 81
  'test/messages/cluster.test.ts', // 72
  'test/proxy/expiry.test.ts', // 68
  'test/limits/rate-limit.test.ts', // 58
  'test/dashboard/logs.test.ts', // 57
  'test/proxy/message-relay-crash.test.ts', // 56
  'test/lookups/platform-signals.test.ts', // 55
  'test/proxy/call-relay.test.ts', // 55
  'test/calls/engine-crash.test.ts', // 52
  'test/proxy/message-relay.test.ts', // 51
  'test/calls/engine-crash-200.test.ts', // 50
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
