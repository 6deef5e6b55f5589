// Undo what a test set up by hand (stores, workers, receivers), last first, after each test.
import { afterEach } from 'vitest';

/** A list to push each test's clean-ups onto; after each test they run in reverse order and the list empties. */
export function useCleanups(): (() => Promise<void>)[] {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return cleanups;
}
