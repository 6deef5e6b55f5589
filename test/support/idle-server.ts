// A server whose background work a test runs itself: on a fresh database of its own, its job worker and webhook
// delivery loop not started, with one account.
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/app.js';
import { testEnv, type Engine } from './server.js';
import { freshDatabase } from './database.js';

/** Its database, store, services and account; `cleanups` closes the server and drops the database after the test. */
export async function idleServer(engine: Engine, cleanups: (() => Promise<void>)[], accountName: string) {
  const db = freshDatabase(engine);
  cleanups.push(() => db.dispose());
  const store = await db.open();
  const server = await start(loadConfig(testEnv(engine, db.dataDir)), { store, worker: false });
  cleanups.push(() => server.close());
  const { services } = server;
  const { account } = await services.accounts.createAccount(accountName);
  return { db, store, services, account };
}
