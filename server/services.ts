// The domain services one server instance runs with, built once from the store and config.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { JobHandler } from './jobs/worker.js';
import { AccountService } from './accounts/service.js';
import { LookupService } from './lookups/service.js';

export interface Services {
  config: Config;
  store: Store;
  logger: Logger;
  accounts: AccountService;
  lookups: LookupService;
  /** Keys HMACs of short secrets such as OTP codes (SECRET_KEY, or generated once and stored). */
  secretKey: string;
}

export function createServices(config: Config, store: Store, logger: Logger, secretKey: string): Services {
  return { config, store, logger, secretKey, accounts: new AccountService(store), lookups: new LookupService(store) };
}

/** Background work by job kind; each feature adds its kinds here. */
export function jobHandlers(_services: Services): Record<string, JobHandler> {
  return {};
}
