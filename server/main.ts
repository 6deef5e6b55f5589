// `npm start`: read the config, start the server, stop cleanly on SIGINT/SIGTERM.
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { ListenError, start } from './app.js';

/** How long after SHUTDOWN_TIMEOUT_MS a shutdown that has not finished gives up (exit 1). */
const BACKSTOP_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  let server;
  try {
    server = await start(config);
  } catch (err) {
    if (err instanceof ListenError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const log = server.services.logger;
  if (server.createdKey) {
    // Shown once: only the key's hash is stored (the webhook secret can be shown again: `npm run cli -- accounts
    // secret --account default`).
    process.stdout.write(
      `\nCreated the default account ${server.createdKey.account_sid}.\n` +
        `Its API key (shown only now, keep it): ${server.createdKey.api_key}\n` +
        `Its webhook signing secret: ${server.createdKey.webhook_secret}\n` +
        `A new key at any time${cliSettings(config)}: npm run --silent cli -- keys create --account default\n\n`,
    );
  }
  log.info(
    { url: server.url, database: config.databaseUrl ? 'postgres' : `sqlite in ${config.dataDir}` },
    `Telephony API listening on ${server.url}`,
  );
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A second signal while stopping gives up waiting.
    if (stopping) {
      log.warn({ signal }, 'stopping at once');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    // A backstop: closing what is left (the database) should take moments once the bound has passed.
    setTimeout(() => {
      log.error('shutdown did not finish in time; stopping at once');
      process.exit(1);
    }, config.shutdownTimeoutMs + BACKSTOP_MS).unref();
    server.close({ graceMs: config.shutdownTimeoutMs }).then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/** The settings the CLI needs as this server has them, to find its database and secret, when not the defaults. */
function cliSettings(config: Config): string {
  const set: [string, unknown][] = [
    ['DATA_DIR', config.dataDir !== path.resolve('./data')],
    ['DATABASE_URL', config.databaseUrl],
    ['DATABASE_SCHEMA', config.databaseSchema],
    ['SECRET_KEY', config.secretKey],
  ];
  const names = set.filter(([, value]) => value).map(([name]) => name);
  return names.length ? ` (with ${names.join(', ')} set as for this server)` : '';
}
