// The domain services one server instance runs with, built once from the store and config.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { Clock } from './clock.js';
import type { JobHandling } from './jobs/job.js';
import { AccountService } from './accounts/service.js';
import { WebhookSecretBox } from './accounts/webhook-secrets.js';
import type { Carrier } from './carrier/carrier.js';
import { SandboxCarrier } from './carrier/sandbox.js';
import { SmppCarrier } from './carrier/smpp/carrier.js';
import { WebhookService } from './webhooks/service.js';
import { MessageService } from './messages/service.js';
import { relayProxyMessages } from './proxy/message-relay.js';
import { LookupService } from './lookups/service.js';
import { AddressService } from './addresses/service.js';
import { NumberService } from './numbers/service.js';
import { VerificationService } from './verify/service.js';
import { AccountSettingsService } from './accounts/settings.js';
import { Retention } from './system/retention.js';
import { CallService } from './calls/service.js';
import type { CallEngine } from './calls/engine/port.js';
import { requestRateLimit, type RequestRateLimit } from './http/rate-limit.js';
import { CallRunner } from './calls/engine/engine.js';
import { PublicUrl } from './http/public-url.js';
import type { VerificationCallReports } from './calls/engine/verification-calls.js';
import { ProxyCallRelay } from './proxy/call-relay.js';
import { ProxySessionService } from './proxy/sessions.js';
import { LogService } from './logs/service.js';
import { createMetrics, type Metrics } from './system/metrics.js';

export interface Services {
  config: Config;
  store: Store;
  /** The domain's time for this instance (the store's clock; transactions carry it as `tx.clock`). */
  clock: Clock;
  logger: Logger;
  accounts: AccountService;
  carrier: Carrier;
  webhooks: WebhookService;
  messages: MessageService;
  calls: CallService;
  /** Proxy sessions: the API, the pool of proxy numbers, expiry. */
  proxy: ProxySessionService;
  /** Runs the calls (dialing, instructions, recordings, events) for the calls service. */
  callEngine: CallEngine;
  /** The base of the absolute links the API hands out (PUBLIC_URL, or the address it listens at). */
  publicUrl: PublicUrl;
  lookups: LookupService;
  addresses: AddressService;
  numbers: NumberService;
  verify: VerificationService;
  accountSettings: AccountSettingsService;
  retention: Retention;
  /** The per-account request rate on /v1, or null when it is off. */
  rateLimit: RequestRateLimit | null;
  /** Keys HMACs of short secrets such as OTP codes (SECRET_KEY, or generated once into DATA_DIR/secret.key). */
  secretKey: string;
  /** Seals and opens the accounts' webhook signing secrets. */
  webhookSecrets: WebhookSecretBox;
  /** What the dashboard's logs read: lists both ways, timelines, webhook deliveries, "retry now". */
  logs: LogService;
  /** This instance's Prometheus registry (GET /metrics) and the counters the domain increments. */
  metrics: Metrics;
}

export function createServices(config: Config, store: Store, logger: Logger, secretKey: string): Services {
  const carrier =
    config.carrier === 'smpp'
      ? new SmppCarrier(config, secretKey, logger)
      : new SandboxCarrier(config, store.dialect, secretKey);
  const webhookSecrets = new WebhookSecretBox(secretKey);
  const metrics = createMetrics(store);
  const webhooks = new WebhookService(store, config, logger, webhookSecrets, metrics.counters);
  const messages = new MessageService(
    store,
    carrier,
    webhooks,
    logger,
    config.maxQueuedMessages,
    config.webhookAllowPrivate,
  );
  relayProxyMessages(messages, webhooks);
  const addresses = new AddressService(store, config.addressVerificationDelay);
  const publicUrl = new PublicUrl(config.publicUrl);
  const numbers = new NumberService(
    store,
    addresses.addresses,
    config.maxNumbersPerAccount,
    config.webhookAllowPrivate,
    publicUrl,
    carrier instanceof SmppCarrier ? carrier.offered : undefined,
  );
  // A released number's queued messages fail, and its pacing is forgotten, in the release's transaction.
  numbers.onReleased((tx, released) => messages.pipeline.numberReleased(tx, released));
  const lookups = new LookupService(store);
  // The engine reports verification calls' failures to the verification service, which places them through it.
  const reports: VerificationCallReports = {
    verificationCallFailed: (tx, failure) => verify.verificationCallFailed(tx, failure),
  };
  // Calls from a proxy session's participants to their proxy numbers are bridged by the proxy's call relay.
  const proxyCalls = new ProxyCallRelay(webhooks);
  const runner = new CallRunner(carrier.voice, webhooks, config, publicUrl, secretKey, reports, proxyCalls, logger);
  const verify = new VerificationService(
    store,
    carrier,
    lookups,
    webhooks,
    config,
    secretKey,
    runner.verificationCalls,
  );
  const callEngine: CallEngine = runner;
  const calls = new CallService(store, carrier, callEngine, config.webhookAllowPrivate, publicUrl);
  const proxy = new ProxySessionService(
    store,
    webhooks,
    numbers,
    config.maxOpenProxySessions,
    config.webhookAllowPrivate,
  );
  return {
    config,
    store,
    clock: store.clock,
    logger,
    secretKey,
    webhookSecrets,
    carrier,
    webhooks,
    messages,
    calls,
    proxy,
    callEngine,
    publicUrl,
    accounts: new AccountService(store, webhookSecrets, config.apiKeyCacheMs),
    lookups,
    addresses,
    numbers,
    verify,
    accountSettings: new AccountSettingsService(store, config.webhookAllowPrivate),
    retention: new Retention(store, config, logger),
    rateLimit: requestRateLimit(config, store, logger, metrics.counters),
    logs: new LogService(store, webhooks),
    metrics,
  };
}

/** Background work by job kind; each feature adds its kinds here. */
export function jobHandlers(services: Services): JobHandling[] {
  return [
    ...services.carrier.jobHandlers(services.messages.pipeline),
    ...services.messages.pipeline.jobHandlers(),
    ...services.addresses.jobHandlers(),
    ...services.carrier.otp.otpJobHandlers(services.verify),
    ...services.verify.jobHandlers(),
    ...services.retention.jobHandlers(),
    ...services.callEngine.jobHandlers(),
    ...services.proxy.jobHandlers(),
  ];
}
