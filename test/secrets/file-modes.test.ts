// The data folder and the database files are the server's alone: 0700 and 0600, also when an older version left
// them readable to others.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { start } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { dropPostgresSchema } from '../../server/store/db.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { ENGINES, testEnv } from '../support/server.js';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe.each(ENGINES)('file modes of the data (%s)', (engine) => {
  const cleanups = useCleanups();

  it('creates DATA_DIR 0700 and the server secret file 0600', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-modes-'));
    cleanups.push(async () => fs.rmSync(parent, { recursive: true, force: true }));
    // A folder that does not exist yet (mkdtemp's own is 0700 already), named for a schema of its own.
    const dataDir = path.join(parent, randomBytes(6).toString('hex'));
    const config = loadConfig(testEnv(engine, dataDir));
    const server = await start(config, { worker: false });
    cleanups.push(async () => {
      await server.close();
      if (config.databaseSchema) await dropPostgresSchema(config.databaseUrl!, config.databaseSchema);
    });
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, 'secret.key'))).toBe(0o600);
    if (engine === 'sqlite') {
      await server.services.accounts.createAccount('a write, so that the log holds something');
      for (const suffix of ['', '-wal', '-shm'])
        expect(modeOf(path.join(dataDir, `telephony.sqlite${suffix}`))).toBe(0o600);
    }
  });

  it.runIf(engine === 'sqlite')(
    'tightens a database file and folder an older version left readable to others',
    async () => {
      const db = freshDatabase(engine);
      cleanups.push(() => db.dispose());
      const file = path.join(db.dataDir, 'telephony.sqlite');
      await (await db.open()).close();
      fs.chmodSync(db.dataDir, 0o755);
      fs.chmodSync(file, 0o644);

      const store = await db.open();
      await store.db.insertInto('server_settings').values({ name: 'probe', value: 'x' }).execute();
      expect(modeOf(db.dataDir)).toBe(0o700);
      for (const suffix of ['', '-wal', '-shm']) expect(modeOf(`${file}${suffix}`)).toBe(0o600);
    },
  );

  it('tightens a secret.key copied in readable to others (0644) to 0600 at start, with one warning', async () => {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const file = path.join(db.dataDir, 'secret.key');
    const secret = randomBytes(32).toString('base64url');
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const lines: { msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });

    const server = await start(loadConfig(testEnv(engine, db.dataDir)), { store: await db.open(), logger });
    cleanups.push(() => server.close());

    expect(server.services.secretKey).toBe(secret);
    expect(modeOf(file)).toBe(0o600);
    expect(lines.filter((l) => l.msg.includes('secret.key'))).toEqual([
      expect.objectContaining({ msg: `${file} was readable by others (mode 0644): made it 0600` }),
    ]);
  });
});
