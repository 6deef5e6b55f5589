// What recent searches answered, kept while no number is provisioned or released anywhere: the same search drawn
// again draws the same candidates (inventory.ts), and while the holdings version stands (store.ts, migration 025)
// the same of them are free, so the search answers without checking them against incoming_numbers again.
import type { AvailableNumber } from './inventory.js';

/**
 * What all remembered answers may cost at most, the least recently used going first: an answer costs its numbers
 * and its key's length in 16 characters, plus one, so that empty answers under many keys (a locality varied at
 * will) count too. About 100 bytes a unit: a number kept alive here, or 16 characters of key.
 */
const MAX_REMEMBERED = 100_000;

const costOf = (key: string, answer: AvailableNumber[]) => answer.length + Math.ceil(key.length / 16) + 1;

export class RecentSearches {
  /** The holdings version the remembered answers are true at. */
  private version = -1;
  private readonly answers = new Map<string, AvailableNumber[]>();
  private remembered = 0;

  /** The answer to search `key`, when it was remembered at `version` (read from the database just before). */
  get(key: string, version: number): AvailableNumber[] | undefined {
    this.moveTo(version);
    if (version !== this.version) return undefined;
    const answer = this.answers.get(key);
    if (answer) {
      this.answers.delete(key);
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** Remembers the answer to search `key`, found with holdings read at `version` or later. */
  set(key: string, version: number, answer: AvailableNumber[]): void {
    this.moveTo(version);
    const cost = costOf(key, answer);
    if (version !== this.version || cost > MAX_REMEMBERED) return;
    const old = this.answers.get(key);
    if (old) this.remembered -= costOf(key, old);
    this.answers.delete(key);
    this.answers.set(key, answer);
    this.remembered += cost;
    for (const [oldest, dropped] of this.answers) {
      if (this.remembered <= MAX_REMEMBERED) break;
      this.answers.delete(oldest);
      this.remembered -= costOf(oldest, dropped);
    }
  }

  /** A newer version makes every remembered answer stale; an older one (a search that read it earlier) does not. */
  private moveTo(version: number): void {
    if (version <= this.version) return;
    this.version = version;
    this.answers.clear();
    this.remembered = 0;
  }
}
