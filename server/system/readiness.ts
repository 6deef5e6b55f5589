// Whether this instance can serve traffic, for /readyz: its database answers and holds every migration of this
// version, its carrier's link is up (SMPP), and it is not shutting down. Load balancers poll it, so the database's
// answer is reused for a short while; a change of state is logged once, not at every poll (an expected state, so at
// warn level at most).
import type { Logger } from 'pino';
import type { Store, Unhealthy } from '../store/db.js';
import type { Carrier } from '../carrier/carrier.js';

/** How long the database's answer is reused: load balancers poll every few seconds, several of them at once. */
const DATABASE_CHECK_MS = 1000;
/** A database that has not answered within this long is reported unavailable (PostgreSQL's check is given up then;
 * SQLite's goes on behind). */
const DATABASE_TIMEOUT_MS = 2000;

export class Readiness {
  private database: { at: number; answer: Promise<Unhealthy | null> } | null = null;
  /** The database check still running, if any: a slow database gets no second check piled on it. */
  private checking: Promise<Unhealthy | null> | null = null;
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
    const state = this.stopping ? { reason: 'The instance is shutting down.' } : await this.currentState();
    const reason = state?.reason ?? null;
    if (reason !== this.reported) {
      if (state) this.logger.warn({ reason, cause: state.cause }, 'not ready');
      else this.logger.info('ready again');
      this.reported = reason;
    }
    return reason;
  }

  private async currentState(): Promise<Unhealthy | null> {
    const database = await this.databaseState();
    if (database) return database;
    // A carrier that keeps a connection (SMPP) is ready only while it is up: traffic sent meanwhile waits.
    const link = this.carrier.readiness?.();
    return link && !link.ready ? { reason: link.reason ?? 'The carrier is not connected.' } : null;
  }

  private databaseState(): Promise<Unhealthy | null> {
    const now = performance.now();
    if (!this.database || now - this.database.at >= DATABASE_CHECK_MS) {
      this.checking ??= this.store
        .unhealthy(DATABASE_TIMEOUT_MS)
        .catch((err: Error) => ({ reason: 'The database does not answer.', cause: err.message }))
        .finally(() => (this.checking = null));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Unhealthy>((resolve) => {
        timer = setTimeout(
          () => resolve({ reason: `The database did not answer within ${DATABASE_TIMEOUT_MS} ms.` }),
          DATABASE_TIMEOUT_MS,
        );
      });
      this.database = { at: now, answer: Promise.race([this.checking, late]).finally(() => clearTimeout(timer)) };
    }
    return this.database.answer;
  }
}
