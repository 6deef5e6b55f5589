// Two servers in one process share no mutable state: each wakes only its own workers and counts only its own requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../server/jobs/queue.js';
import { RETENTION_JOB } from '../server/system/retention.js';
import { ENGINES, startTestServer, type TestServer } from './support/server.js';

describe.each(ENGINES)('two servers in one process (%s)', (engine) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestServer(engine), startTestServer(engine)]);
  });
  afterAll(() => Promise.all([a.stop(), b.stop()]));

  it('wakes only the job worker of the server whose store enqueued a job', async () => {
    const woken = { a: 0, b: 0 };
    const onA = () => woken.a++;
    const onB = () => woken.b++;
    a.server.services.store.signals.on('jobs', onA);
    b.server.services.store.signals.on('jobs', onB);
    try {
      await a.server.services.store.transaction((tx) => enqueueJob(tx, RETENTION_JOB, {}));
      expect(woken).toEqual({ a: 1, b: 0 });
    } finally {
      a.server.services.store.signals.off('jobs', onA);
      b.server.services.store.signals.off('jobs', onB);
    }
  });

  it("counts in each server's /metrics only its own requests", async () => {
    const count = async (t: TestServer) => {
      const text = await (await fetch(`${t.directUrl}/metrics`)).text();
      return Number(/^http_requests_total\{operation="getReadiness",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    for (let n = 0; n < 3; n++) expect((await fetch(`${a.directUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${b.directUrl}/readyz`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([3, 1]);
  });
});
