// smpps://: the session over TLS to a loopback SMSC with a self-signed certificate made by the openssl command
// line (skipped where there is none; no dependency is added for it).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { part, readiness, sessionForTest, smscForTest } from './session-support.js';

function selfSigned(): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'smpp-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pair = selfSigned();

describe.skipIf(!pair)('SMPP session over TLS', () => {
  it('binds over smpps:// to an SMSC whose certificate it trusts, and submits', async () => {
    const smsc = await smscForTest({ tls: pair! });
    expect(smsc.url()).toMatch(/^smpps:\/\//);
    const { session } = sessionForTest(smsc.url(), { tls: { ca: pair!.cert } });
    await readiness(session);
    expect(await session.submit(part())).toMatchObject({ kind: 'accepted' });
  });

  it('does not bind to an SMSC whose certificate it cannot verify, and says why', async () => {
    const smsc = await smscForTest({ tls: pair! });
    const { session } = sessionForTest(smsc.url());
    await expect
      .poll(() => session.readiness().reason, { timeout: 5000 })
      .toMatch(/^connection failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/);
    expect(smsc.binds).toBe(0);
  });
});
