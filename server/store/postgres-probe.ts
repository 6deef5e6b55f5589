// PostgreSQL: the readiness check's own connection, outside the pool. A connection whose peer went silent (a network
// path that drops packets and sends no reset) holds its query until the kernel gives up on it, many minutes later: a
// check made on the pool waited that long, and readiness with it, though the database answered again on new
// connections. This connection is ended at the check's deadline and opened anew at the next check, so readiness
// follows the database within a check or two of its return.
import { createRequire } from 'node:module';
import type pg from 'pg';

/** The PostgreSQL driver, loaded only where a database URL is given (as in db.ts). */
const postgresDriver = () => createRequire(import.meta.url)('pg') as typeof import('pg');

export class PostgresProbe {
  private client: pg.Client | null = null;

  constructor(
    /** The pool's connection settings (URL, search path). */
    private readonly config: pg.ClientConfig,
    private readonly timeoutMs: number,
  ) {}

  /** The rows of `text`, or an error when the database does not answer within the deadline (connecting included). */
  async rows<R>(text: string): Promise<R[]> {
    let timer: NodeJS.Timeout | undefined;
    let client: pg.Client | null = this.client;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      const asked = (async () => {
        client ??= await this.open();
        return (await client.query(text)).rows as R[];
      })();
      asked.catch(() => undefined);
      return await Promise.race([asked, deadline]);
    } catch (err) {
      this.drop(client);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    const client = this.client;
    this.client = null;
    return client ? client.end().catch(() => undefined) : Promise.resolve();
  }

  private async open(): Promise<pg.Client> {
    const client = new (postgresDriver().Client)({ ...this.config, connectionTimeoutMillis: this.timeoutMs });
    // A connection that breaks between checks is opened again at the next one.
    client.on('error', () => this.drop(client));
    try {
      await client.connect();
    } catch (err) {
      this.drop(client);
      throw err;
    }
    this.client = client;
    return client;
  }

  /** Ends `client` at once (its socket too: a silent peer would hold a polite end), if it is still the probe's. */
  private drop(client: pg.Client | null): void {
    if (!client) return;
    if (this.client === client) this.client = null;
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    client.end().catch(() => undefined);
  }
}
