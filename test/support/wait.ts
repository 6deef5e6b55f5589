// The one polling helper of the tests: asynchronous work (jobs, webhooks, the sandbox network) is awaited by
// asking again until it is done, never by a fixed sleep.

/**
 * Calls `probe` until it returns a truthy value and returns that value; fails after `timeoutMs` naming `what`
 * and the probe's last error. A probe that throws is asked again: a request may meet a keep-alive
 * connection that a server restart closed.
 */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const value = await probe().catch((err) => {
      lastError = err;
      return undefined;
    });
    if (value) return value;
    if (Date.now() > deadline) {
      const cause = lastError ? ` (last error: ${String((lastError as Error)?.message ?? lastError)})` : '';
      throw new Error(`timed out waiting for ${what}${cause}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Reads a resource again until its status is `status` and returns it then, as waitUntil does. */
export async function waitForStatusOf<T extends { status?: string }>(
  read: () => Promise<T | undefined>,
  status: string,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return waitUntil(
    async () => {
      const resource = await read();
      return resource?.status === status ? resource : undefined;
    },
    timeoutMs,
    what,
  );
}
