// The checkpoint thread: its own connection to the SQLite file, copying the write-ahead log back into the database
// file when the main thread asks, until it has caught up with the writer; it answers with the last pass's outcome.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { CheckpointOutcome } from './checkpointer.js';

/** A pass that finds fewer new frames than this has caught up: the main connection copies the rest itself. */
const CAUGHT_UP_FRAMES = 128;
const MAX_PASSES = 10;

const port = parentPort!;
const file = new SQLite((workerData as { path: string }).path, { fileMustExist: true });
file.pragma('busy_timeout = 5000');

function checkpoint(): CheckpointOutcome {
  try {
    // Passive: copies what it can without waiting for readers or writers, so the API never waits for it.
    const [row] = file.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    return { logFrames: row.log, copiedFrames: row.checkpointed };
  } catch (err) {
    return { logFrames: 0, copiedFrames: 0, error: (err as Error).message };
  }
}

port.on('message', () => {
  // The writer goes on appending during a pass; the next pass copies what it appended, until little is left.
  let outcome = checkpoint();
  for (
    let pass = 1, before = 0;
    pass < MAX_PASSES && !outcome.error && outcome.logFrames - before >= CAUGHT_UP_FRAMES;
    pass++
  ) {
    before = outcome.logFrames;
    outcome = checkpoint();
  }
  port.postMessage(outcome);
});
