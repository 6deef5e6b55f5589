// `npm start`: read the config, start the server, stop cleanly on SIGINT/SIGTERM.
import { ConfigError, loadConfig } from './config.js';
import { start } from './app.js';

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
  const server = await start(config);
  const log = server.services.logger;
  if (server.createdKey) {
    // Shown once: only its hash is stored.
    process.stdout.write(
      `\nCreated the default account ${server.createdKey.account_sid}.\n` +
        `Its API key (shown only now, keep it): ${server.createdKey.api_key}\n\n`,
    );
  }
  log.info(
    { url: server.url, database: config.databaseUrl ? 'postgres' : `sqlite in ${config.dataDir}` },
    `Telephony API listening on ${server.url}`,
  );
  const stop = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
