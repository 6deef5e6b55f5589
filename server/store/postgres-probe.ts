// PostgreSQL: the readiness check's own connection, outside the pool. A connection whose peer went silent (a network
// path that drops packets and sends no reset) holds its query until the kernel gives up on it, many minutes later: a
// check made on the pool waited that long, and readiness with it, though the database answered again on new
// connections. This connection is ended at the check's deadline and opened anew at the next check, so readiness
// follows the database within a check or two of its return.
import type pg from 'pg';

export class PostgresProbe {
  private client: pg.Client | null = null;

  constructor(
    /** The driver's client (db.ts loads the driver only where a database URL is given). */
    private readonly Client: typeof pg.Client,
    /** The pool's connection settings (URL, search path). */
    private readonly config: pg.ClientConfig,
  ) {}

  /** The rows of `text`, or an error when the database does not answer within `timeoutMs` (connecting included). */
  async rows<R>(text: string, timeoutMs: number): Promise<R[]> {
    let timer: NodeJS.Timeout | undefined;
    let client: pg.Client | null = this.client;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const asked = (async () => {
        client ??= await this.open(timeoutMs);
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

  private async open(timeoutMs: number): Promise<pg.Client> {
    const client = new this.Client({ ...this.config, connectionTimeoutMillis: timeoutMs });
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
