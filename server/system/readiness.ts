// Whether this instance can serve traffic, for /readyz: its database answers and holds every migration of this
// version, its carrier's link is up (SMPP), and it is not shutting down. Load balancers poll it, so the database's
// answer is reused for a short while; a change of state is logged once, not at every poll (an expected state, so at
// warn level at most).
import type { Logger } from 'pino';
import type { Store } from '../store/db.js';
import type { Carrier } from '../carrier/carrier.js';

/** How long the database's answer is reused: load balancers poll every few seconds, several of them at once. */
const DATABASE_CHECK_MS = 1000;
/** A database that has not answered within this long is reported unavailable (the check goes on behind). */
const DATABASE_TIMEOUT_MS = 2000;

export class Readiness {
  private database: { at: number; reason: Promise<string | null> } | null = null;
  private stopping = false;
  /** The reason last logged (null: ready), so that only changes are logged. */
  private reported: string | null = null;

  constructor(
    private readonly store: Store,
    private readonly carrier: Pick<Carrier, 'readiness'>,
    private readonly logger: Logger,
  ) {}

  /** Whether the carrier keeps a link that readiness reports on (the SMPP session). */
  get hasLink(): boolean {
    return this.carrier.readiness?.() !== undefined;
  }

  /** Not ready from now on: the instance is shutting down, and load balancers should send its traffic elsewhere. */
  stop(): void {
    this.stopping = true;
  }

  /** Why the instance is not ready, or null when it is. */
  async reason(): Promise<string | null> {
    const reason = this.stopping ? 'The instance is shutting down.' : await this.currentReason();
    if (reason !== this.reported) {
      if (reason) this.logger.warn({ reason }, 'not ready');
      else this.logger.info('ready again');
      this.reported = reason;
    }
    return reason;
  }

  private async currentReason(): Promise<string | null> {
    const database = await this.databaseReason();
    if (database) return database;
    // A carrier that keeps a connection (SMPP) is ready only while it is up: traffic sent meanwhile waits.
    const link = this.carrier.readiness?.();
    return link && !link.ready ? (link.reason ?? 'The carrier is not connected.') : null;
  }

  private databaseReason(): Promise<string | null> {
    const now = performance.now();
    if (!this.database || now - this.database.at >= DATABASE_CHECK_MS) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(
          () => resolve(`The database did not answer within ${DATABASE_TIMEOUT_MS} ms.`),
          DATABASE_TIMEOUT_MS,
        );
      });
      const checked = this.store.unhealthy().catch((err: Error) => `The database does not answer: ${err.message}`);
      this.database = { at: now, reason: Promise.race([checked, late]).finally(() => clearTimeout(timer)) };
    }
    return this.database.reason;
  }
}
