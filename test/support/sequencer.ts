// The order in which the two workers take the test files: the longest known first, so that no long file starts last
// and runs alone at the end. Vitest orders by its cache of last durations, which a fresh clone (CI) does not have: it
// then orders by file size, which says little about a file's time (the crash tests are short files).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files, longest first: seconds alone (both engines, load average 6-10 on 2 CPUs, 2026-11-26), where a
 * full run's last files take about as long. Measure again when a file grows long.
 */
const LONGEST_FIRST = [
  'test/smpp/carrier-resilience.test.ts', // 80-120
  'test/system/shutdown.test.ts', // 78
  'test/calls/engine-crash-200.test.ts', // 60-70
  'test/proxy/message-relay-crash.test.ts', // 45-66
  'test/messages/cluster.test.ts', // 58
  'test/messages/crash.test.ts', // 58
  'test/config.test.ts', // 38-67: starts many processes
  'test/idempotency/crash-window.test.ts', // 47
  'test/calls/engine-crash.test.ts', // 42-52
  'test/docs/docs.test.ts', // 42
  'test/metrics.test.ts', // 29
  'test/system/compiled.test.ts', // 25: builds dist/
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
