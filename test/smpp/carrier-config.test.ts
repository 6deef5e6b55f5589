// The SMPP carrier's settings: checked at start with clear messages, the SMSC password never shown.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { OfferedNumbers } from '../../server/carrier/smpp/offered-numbers.js';
import { runScript } from '../support/run.js';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.message
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^ {2}- /, ''));
  }
}

describe('SMPP configuration', () => {
  it('reads CARRIER=smpp with its URL, window, throughput, TON/NPI and numbers', () => {
    const config = loadConfig({
      CARRIER: 'smpp',
      SMPP_URL: 'smpps://esme:secret@smsc.example.net:3550',
      SMPP_SYSTEM_TYPE: 'VMA',
      SMPP_WINDOW: '20',
      SMPP_TPS: '200',
      SMPP_SOURCE_TON: '5',
      SMPP_SOURCE_NPI: '0',
      SMPP_NUMBERS: '+12025550100, +12025550200-+12025550299',
    });
    expect(config).toMatchObject({
      carrier: 'smpp',
      smppUrl: 'smpps://esme:secret@smsc.example.net:3550',
      smppSystemType: 'VMA',
      smppWindow: 20,
      smppTps: 200,
      smppSourceTon: 5,
      smppSourceNpi: 0,
      smppDestTon: 1,
      smppDestNpi: 1,
    });
    const offered = new OfferedNumbers(config.smppNumbers);
    expect([...offered.all()]).toHaveLength(101);
    expect(offered.includes('+12025550100')).toBe(true);
    expect(offered.includes('+12025550250')).toBe(true);
    expect(offered.includes('+12025550300')).toBe(false);
    expect(offered.includes('+1202555025')).toBe(false);
  });

  it('keeps the sandbox the default carrier', () => {
    expect(loadConfig({}).carrier).toBe('sandbox');
  });

  it('needs SMPP_URL with CARRIER=smpp', () => {
    expect(problemsOf({ CARRIER: 'smpp' })).toEqual([
      'SMPP_URL must be set (smpp://SYSTEM_ID:PASSWORD@HOST:PORT, or smpps:// for TLS) with CARRIER=smpp: ' +
        'the SMPP carrier binds to that SMSC',
    ]);
  });

  it.each([
    ['SMPP_URL', 'http://esme:pw@smsc:2775', 'an smpp:// or smpps:// URL with a system id and a host'],
    ['SMPP_URL', 'smpp://smsc:2775', 'an smpp:// or smpps:// URL with a system id and a host'],
    ['SMPP_WINDOW', '0', 'an integer from 1 to 1000'],
    ['SMPP_TPS', 'fast', 'an integer from 1 to 100000'],
    ['SMPP_SOURCE_TON', '7', 'an integer from 0 to 6'],
    ['SMPP_NUMBERS', '2025550100', 'a comma list of E.164 numbers and ranges +FIRST-+LAST of the same length'],
    [
      'SMPP_NUMBERS',
      '+12025550199-+12025550100',
      'a comma list of E.164 numbers and ranges +FIRST-+LAST of the same length',
    ],
  ])('rejects %s=%s', (name, value, accepts) => {
    const [problem] = problemsOf({ CARRIER: 'smpp', SMPP_URL: 'smpp://esme:pw@127.0.0.1:2775', [name]: value });
    expect(problem).toMatch(new RegExp(`^${name} must be ${accepts.replace(/[+.]/g, '\\$&')}`));
  });

  it('masks the SMSC password of a bad SMPP_URL', () => {
    expect(problemsOf({ CARRIER: 'smpp', SMPP_URL: 'http://esme:hunter2@smsc:2775' })).toEqual([
      'SMPP_URL must be an smpp:// or smpps:// URL with a system id and a host, got "http://esme:***@smsc:2775"',
    ]);
  });

  it('makes `npm start` exit 2 when CARRIER=smpp comes without SMPP_URL', async () => {
    const res = await runScript('server/main.ts', [], { CARRIER: 'smpp' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('SMPP_URL must be set');
  });
});
