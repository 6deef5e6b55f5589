// createApp builds the Express application from its dependencies; start() opens the store and listens.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import './http/route-lookup.js';
import './http/validator-builds.js';
import { BUNDLED_AT_BUILD } from './http/validator-start.js';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { Store } from './store/db.js';
import type { Clock } from './clock.js';
import { createServices, jobHandlers, type Services } from './services.js';
import { ServerSecret } from './accounts/server-secret.js';
import { JobWorker } from './jobs/worker.js';
import { crowdedWithin, requestContext } from './http/request-context.js';
import { assertKeyedOperationsUnderV1, requireApiKey } from './http/auth.js';
import { readBody } from './http/body.js';
import { answerClientErrors } from './http/client-error.js';
import { problemMiddleware } from './http/problem.js';
import { mountOperations } from './http/operation.js';
import { loadSpec } from './http/spec.js';
import { errors } from './errors.js';
import { mountSystemRoutes } from './system/routes.js';
import { handlers } from './routes/index.js';
import { mountDashboard } from './dashboard/index.js';
import { Readiness } from './system/readiness.js';
import { drainable } from './http/drain.js';
import { httpServerFor, listen } from './http/http-server.js';

/** Background jobs yield to the API while it was crowded within this many ms (see JobWorker's `busy`). */
const BUSY_WINDOW_MS = 50;
/** The longest background jobs wait between claims while the API stays busy (a sustained burst of requests). */
const MAX_YIELD_MS = 200;
/** How long the webhook attempts failed by a shutdown get to find their events released (see stopBackground). */
const SETTLE_MS = 1000;

function createApp(services: Services, readiness: Readiness): Express {
  const { config, logger, accounts } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const { metrics } = services;

  app.use(requestContext(app, logger));
  app.use(metrics.middleware);
  // Every operation that needs a key is under /v1 (checked here), so this is the one place keys are checked;
  // the validator's own security check would only repeat it. It comes before any body is read: a caller without a
  // key gets its 401 without the server reading, decompressing or parsing a byte of the body.
  assertKeyedOperationsUnderV1(loadSpec().operations);
  app.use('/v1', requireApiKey(accounts));
  if (services.rateLimit) app.use('/v1', services.rateLimit.middleware);
  // Only /v1 takes bodies: the public routes are all GETs, and leave a body unread.
  app.use('/v1', readBody());
  // The dashboard's pages are no API operations: they are served before the validator, with their own sign-in.
  mountDashboard(app, services);
  // A HEAD is the GET without its body (RFC 9110, as Express serves it): the validator knows only the spec's methods,
  // so it is checked and routed as that GET, and Node leaves the body out since the request was a HEAD.
  app.use((req, _res, next) => {
    if (req.method === 'HEAD') req.method = 'GET';
    next();
  });
  const { checkedAtBuild } = loadSpec();
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(loadSpec().document) as any,
      // Compiled, the build did both already (see server/http/validator-start.ts).
      validateApiSpec: !checkedAtBuild.metaSchema,
      $refParser: checkedAtBuild.bundled ? BUNDLED_AT_BUILD : undefined,
      validateRequests: { allErrors: true },
      validateResponses: config.validateResponses ? { allErrors: true } : false,
      validateSecurity: false,
      // The API takes no multipart bodies.
      fileUploader: false,
      ignorePaths: /^\/docs\/assets\//,
    }),
  );
  mountSystemRoutes(app, readiness, metrics.registry, config.publicUrl);
  mountOperations(app, handlers, services);
  app.use((_req, _res, next) => next(errors.noSuchRoute()));
  app.use(problemMiddleware);
  return app;
}

export interface RunningServer {
  url: string;
  port: number;
  /** The HTTP server, listening (see server/http/http-server.ts for how it makes its requests). */
  http: Server;
  services: Services;
  /** The key and webhook secret of the account created at this start, when one was (print them once). */
  createdKey: { account_sid: string; api_key: string; webhook_secret: string } | null;
  /** The background job worker (running unless started with `worker: false`, as is the webhook delivery loop). */
  worker: JobWorker;
  /**
   * Stops the instance: not ready from then on, no new connections, no new claims of jobs or webhook events. With
   * `graceMs` (SHUTDOWN_TIMEOUT_MS on a signal), the requests in flight and the jobs and webhook attempts in hand get
   * that long to end, and what is still held then is released for any instance to claim at once; without it, the
   * requests in flight are cut and the background work in hand is awaited. Then the database is closed.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Open an existing store instead of the configured one. */
  store?: Store;
  /** Run the background job worker and the webhook delivery loop (default true). */
  worker?: boolean;
  /** The domain's time (the system's by default); with `store`, the store's own clock is the one used. */
  clock?: Clock;
}

/** The server could not listen where it was told to (a busy port, an address this machine does not have). */
export class ListenError extends Error {
  constructor(host: string, port: number, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? 'the port is in use by another program (stop it, or set PORT to a free port)'
        : code === 'EADDRNOTAVAIL'
          ? 'this machine has no such address (set HOST to one of its addresses, or 0.0.0.0)'
          : code === 'EACCES'
            ? 'permission denied (ports below 1024 need privileges; set PORT to 1024 or above)'
            : (cause as Error).message;
    super(`Cannot listen on ${host}:${port}: ${why}.`, { cause });
  }
}

export async function start(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  // A given store brings its own clock (its transactions carry it): a second one would split the instance's time.
  if (options.store && options.clock && options.store.clock !== options.clock) {
    throw new Error('start: a given store brings its own clock; give the clock to Store.open');
  }
  const { databaseUrl, dataDir } = config;
  const schema = config.databaseSchema ?? undefined;
  const secret = new ServerSecret(config, logger);
  const store =
    options.store ??
    (await Store.open({
      databaseUrl,
      dataDir,
      schema,
      synchronousCommit: config.databaseSynchronousCommit ?? undefined,
      queryTimeoutMs: config.databaseQueryTimeoutMs,
      logger,
      clock: options.clock,
      serverSecret: secret.load,
    }));
  const services = createServices(config, store, logger, await secret.load(store.db));
  // A configured key (TELEPHONY_API_KEY) is known already: its account exists before the server answers, so a
  // client that sees /readyz answer can use the key at once. A generated one waits until the server listens (below).
  const configured = config.apiKey ? await services.accounts.ensureDefaultAccount(config.apiKey) : null;
  await services.rateLimit?.ready();
  const readiness = new Readiness(store, services.carrier, logger);
  const app = createApp(services, readiness);
  // Background work: the jobs table and the webhook events, each its own queue on the same settings.
  const background = {
    pollMs: config.jobPollMs,
    leaseMs: config.jobLeaseMs,
    maxClaims: config.jobMaxClaims,
    maxRunning: config.jobConcurrency,
    busy: () => crowdedWithin(BUSY_WINDOW_MS),
    maxYieldMs: MAX_YIELD_MS,
  };
  const { claimTimer, jobGroup } = services.metrics.counters;
  const worker = new JobWorker(store, jobHandlers(services), logger, {
    ...background,
    onClaim: claimTimer('jobs'),
    onGroup: jobGroup,
  });
  const webhookDelivery = services.webhooks.deliveryLoop({
    ...background,
    workerId: worker.workerId,
    onClaim: claimTimer('webhooks'),
  });
  await services.retention.schedule();
  // The carrier's own link to the network (the SMPP session), reporting what arrives on it into the pipeline.
  services.carrier.start?.(store, services.messages.pipeline);
  if (options.worker !== false) {
    worker.start();
    webhookDelivery.start();
  }

  /** Stops the background work, the work in hand given until `deadline` (performance.now()) to end. */
  const stopBackground = async (deadline: number, beforeWaiting?: () => Promise<void>) => {
    const left = () => Math.max(0, deadline - performance.now());
    // No new claims from now on; the work in hand goes on meanwhile.
    const jobs = worker.stopWithin(left());
    const deliveries = webhookDelivery.stopWithin(left());
    try {
      await beforeWaiting?.();
      // The carrier then: submits waiting for its link settle (answered, or "try again later"), so their jobs can
      // record how they ended before any job is given back: a job released while its submit was still on the link
      // would be sent again by another instance.
      await services.carrier.close?.();
      const [ended, delivered] = await Promise.all([jobs, deliveries]);
      if (!ended) await worker.stop(SETTLE_MS);
      await services.callEngine.close();
      if (!delivered) await services.webhooks.releaseHeld(worker.workerId);
      await services.webhooks.close();
      // The attempts the closed sender failed find their events released, and record nothing (a moment, bounded).
      if (!delivered) await webhookDelivery.stopWithin(SETTLE_MS);
    } finally {
      // Whatever failed above (the database gone at shutdown), nothing is left open behind (closing twice is nothing).
      await services.webhooks.close();
      await services.callEngine.close();
      await services.rateLimit?.close();
      if (!options.store) await store.close();
    }
  };
  const server = httpServerFor(app);
  try {
    await listen(server, config.port, config.host);
  } catch (err) {
    await stopBackground(Infinity);
    throw new ListenError(config.host, config.port, err);
  }
  // Listening, the server reports only a connection it could not accept (EMFILE, say): logged, and it goes on.
  server.on('error', (err) => logger.error({ err }, 'the HTTP server could not accept a connection'));
  server.keepAliveTimeout = 65_000;
  const drain = drainable(server);
  answerClientErrors(server, logger);
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  services.publicUrl.listeningAt(`http://${host}:${port}`);
  // A generated key only once the server listens: a first start that cannot listen creates no account whose key
  // would go unprinted.
  const createdKey = config.apiKey ? configured : await services.accounts.ensureDefaultAccount(null);

  return {
    url: `http://${host}:${port}`,
    port,
    http: server,
    services,
    createdKey: createdKey && {
      account_sid: createdKey.account_sid,
      api_key: createdKey.api_key,
      webhook_secret: createdKey.webhook_secret,
    },
    worker,
    async close({ graceMs } = {}) {
      readiness.stop();
      const deadline = graceMs === undefined ? Infinity : performance.now() + graceMs;
      await stopBackground(deadline, () => drain(graceMs ?? 0));
    },
  };
}
