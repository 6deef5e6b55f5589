// The order in which the two workers take the test files: the longest known first, so that no long file starts last
// and runs alone at the end. Vitest orders by its cache of last durations, which a fresh clone (CI) does not have: it
// then orders by file size, which says little about a file's time (the docs test is mid-sized and the longest).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest files of a full run on both engines, longest first (seconds on a loaded 2-CPU machine). */
const LONGEST_FIRST = [
  'test/docs/docs.test.ts', // ~130
  'test/system/shutdown.test.ts', // 60-110
  'test/messages/cluster.test.ts', // ~90
  'test/smpp/carrier-resilience.test.ts', // ~80
  'test/messages/crash.test.ts',
  'test/calls/engine-crash-200.test.ts',
  'test/system/compiled.test.ts', // ~50: builds dist/
  'test/metrics.test.ts',
  'test/calls/engine-crash.test.ts',
  'test/proxy/message-relay-crash.test.ts',
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
