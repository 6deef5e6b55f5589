// GSM-7 / UCS-2 parts as the SMPP carrier sends them, and MO decoding.
import { describe, expect, it } from 'vitest';
import { decodeShortMessage, encodeMessage } from '../../server/carrier/smpp/encoding.js';
import { countSegments } from '../../server/messages/segments.js';
import { part, readiness, sessionForTest, smscForTest } from './session-support.js';

const GSM_BASIC = 'abcXYZ019 @£$¥èéÇ\nØ\rÅΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ!"#¤%&\'()*+,-./:;<=>?¡ÄÖÑÜ§¿äöñüà';
const GSM_EXTENDED = '€[]{}^~|\\\f';
const OTHER_BMP = 'яжщ漢字ñçĞ';
const EMOJI = ['😀', '👍🏽', '🇫🇷'];

/** A deterministic generator, so a failure names a body that can be reproduced. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function body(next: () => number, length: number, alphabet: string[]): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}

function decodeParts(parts: Buffer[], dataCoding: number, esmClass: number) {
  return parts.map((shortMessage) => decodeShortMessage({ esmClass, dataCoding, shortMessage }));
}

describe('encodeMessage', () => {
  const next = random(24);
  const gsmOnly = [...GSM_BASIC, ...GSM_BASIC, ...GSM_EXTENDED];
  const mixed = [...GSM_BASIC, ...OTHER_BMP, ...EMOJI];
  const bodies: string[] = ['', 'a', '€'];
  for (const length of [1, 70, 71, 152, 153, 154, 159, 160, 161, 200, 306, 307, 459, 460, 700]) {
    for (let i = 0; i < 6; i++) bodies.push(body(next, length, gsmOnly));
    for (let i = 0; i < 6; i++) bodies.push(body(next, Math.ceil(length / 2), mixed));
  }

  it('sends as many parts as countSegments says, each decoding to its slice of the body, for many bodies', () => {
    for (const text of bodies) {
      const reference = Math.floor(next() * 1000);
      const { dataCoding, esmClass, parts } = encodeMessage(text, reference);
      expect(parts.length, JSON.stringify(text)).toBe(countSegments(text));
      const decoded = decodeParts(parts, dataCoding, esmClass);
      expect(decoded.map((d) => d.text).join(''), JSON.stringify(text)).toBe(text);
      if (parts.length === 1) {
        expect(esmClass).toBe(0);
        expect(decoded[0].concat).toBeUndefined();
      } else {
        expect(esmClass).toBe(0x40);
        decoded.forEach((d, i) => {
          expect(d.concat).toEqual({ reference: reference & 0xff, total: parts.length, index: i + 1 });
          // No part starts or ends inside a surrogate pair.
          expect(d.text).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
        });
      }
      for (const part of parts) {
        const payload = parts.length === 1 ? part.length : part.length - 6;
        if (dataCoding === 0) expect(payload).toBeLessThanOrEqual(parts.length === 1 ? 160 : 153);
        else expect(payload).toBeLessThanOrEqual(parts.length === 1 ? 140 : 134);
      }
    }
  });

  it('picks GSM-7 (data_coding 0) when every character is in the GSM-7 tables, else UCS-2 (8)', () => {
    expect(encodeMessage('Hello [world] €5 {ok}', 1).dataCoding).toBe(0);
    expect(encodeMessage('Привет', 1).dataCoding).toBe(8);
    expect(encodeMessage('thumbs 👍', 1).dataCoding).toBe(8);
    expect(encodeMessage('', 1)).toEqual({ dataCoding: 0, esmClass: 0, parts: [Buffer.alloc(0)] });
  });

  it('writes GSM-7 unpacked, one septet per byte, extension characters as escape and code', () => {
    const { parts } = encodeMessage('@A€[\\]', 1);
    expect([...parts[0]]).toEqual([0x00, 0x41, 0x1b, 0x65, 0x1b, 0x3c, 0x1b, 0x2f, 0x1b, 0x3e]);
  });

  it('writes UCS-2 as UTF-16BE with surrogate pairs', () => {
    const { parts } = encodeMessage('я😀', 1);
    expect(parts[0].toString('hex')).toBe('044fd83dde00');
  });

  it('fits 160 GSM-7 septets in one part and splits 161 into two parts of 153 and 8', () => {
    expect(encodeMessage('a'.repeat(160), 7).parts).toHaveLength(1);
    const { parts } = encodeMessage('a'.repeat(161), 7);
    expect(parts.map((p) => p.length)).toEqual([6 + 153, 6 + 8]);
    expect([...parts[0].subarray(0, 6)]).toEqual([0x05, 0x00, 0x03, 7, 2, 1]);
    expect([...parts[1].subarray(0, 6)]).toEqual([0x05, 0x00, 0x03, 7, 2, 2]);
  });

  it('counts 160 septets with extension characters as one part (80 euro signs)', () => {
    expect(encodeMessage('€'.repeat(80), 1).parts).toHaveLength(1);
    expect(encodeMessage('€'.repeat(81), 1).parts).toHaveLength(2);
  });

  it('never splits an extension character: the part ends one septet short and countSegments agrees', () => {
    const text = 'a'.repeat(152) + '€' + 'a'.repeat(152);
    const { parts } = encodeMessage(text, 1);
    expect(parts.map((p) => p.length - 6)).toEqual([152, 153, 1]);
    expect(parts[1].subarray(6, 8)).toEqual(Buffer.from([0x1b, 0x65]));
    expect(countSegments(text)).toBe(3);
  });

  it('fits 70 UCS-2 units in one part and splits 71 into 67 and 4', () => {
    expect(encodeMessage('я'.repeat(70), 1).parts).toHaveLength(1);
    expect(encodeMessage('я'.repeat(71), 1).parts.map((p) => p.length)).toEqual([6 + 134, 6 + 8]);
  });

  it('never splits a surrogate pair: the part ends one unit short and countSegments agrees', () => {
    const text = 'я'.repeat(66) + '😀' + 'я'.repeat(66);
    const { parts } = encodeMessage(text, 1);
    expect(parts.map((p) => (p.length - 6) / 2)).toEqual([66, 67, 1]);
    expect(parts[1].subarray(6, 10).toString('hex')).toBe('d83dde00');
    expect(countSegments(text)).toBe(3);
  });
});

describe('decodeShortMessage', () => {
  it('decodes GSM-7 with the extension table', () => {
    const shortMessage = Buffer.from([0x48, 0x69, 0x20, 0x1b, 0x65, 0x1b, 0x3c, 0x1b, 0x3e, 0x00, 0x11]);
    expect(decodeShortMessage({ esmClass: 0, dataCoding: 0, shortMessage })).toEqual({ text: 'Hi €[]@_' });
  });

  it('shows the default character for an unknown escape and drops a trailing escape', () => {
    const shortMessage = Buffer.from([0x1b, 0x41, 0x42, 0x1b]);
    expect(decodeShortMessage({ esmClass: 0, dataCoding: 0, shortMessage }).text).toBe('AB');
  });

  it('decodes UCS-2 (data_coding 8), emoji included', () => {
    const hello = Buffer.from('Привет 😀', 'utf16le').swap16();
    expect(decodeShortMessage({ esmClass: 0, dataCoding: 8, shortMessage: hello })).toEqual({ text: 'Привет 😀' });
  });

  it('strips the UDH and reports the concatenation, with an 8-bit or a 16-bit reference', () => {
    const eight = Buffer.concat([Buffer.from([0x05, 0x00, 0x03, 0x2a, 3, 2]), Buffer.from('part', 'latin1')]);
    expect(decodeShortMessage({ esmClass: 0x40, dataCoding: 0, shortMessage: eight })).toEqual({
      text: 'part',
      concat: { reference: 0x2a, total: 3, index: 2 },
    });
    const sixteen = Buffer.concat([
      Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 2, 1]),
      Buffer.from('я', 'utf16le').swap16(),
    ]);
    expect(decodeShortMessage({ esmClass: 0x40, dataCoding: 8, shortMessage: sixteen })).toEqual({
      text: 'я',
      concat: { reference: 0x1234, total: 2, index: 1 },
    });
  });

  it('skips other UDH elements before the concatenation (a port address, for instance)', () => {
    const udh = [0x0b, 0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0, 0x00, 0x03, 0x09, 2, 2];
    const shortMessage = Buffer.concat([Buffer.from(udh), Buffer.from('xy', 'latin1')]);
    expect(decodeShortMessage({ esmClass: 0x40, dataCoding: 0, shortMessage })).toEqual({
      text: 'xy',
      concat: { reference: 9, total: 2, index: 2 },
    });
  });

  it('reads IA5 (1) and Latin-1 (3) as SMSCs send them', () => {
    expect(decodeShortMessage({ esmClass: 0, dataCoding: 1, shortMessage: Buffer.from('plain_text') }).text).toBe(
      'plain_text',
    );
    expect(decodeShortMessage({ esmClass: 0, dataCoding: 3, shortMessage: Buffer.from('café', 'latin1') }).text).toBe(
      'café',
    );
  });
});

describe('encoding through a session and the loopback SMSC', () => {
  it('delivers a long UCS-2 message as concatenated parts the SMSC reassembles', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await readiness(session);
    const text = 'Привет, мир! 😀 '.repeat(12);
    const { dataCoding, esmClass, parts } = encodeMessage(text, 77);
    const results = await Promise.all(
      parts.map((shortMessage) => session.submit({ ...part(), dataCoding, esmClass, shortMessage })),
    );
    expect(results.every((r) => r.kind === 'accepted')).toBe(true);
    expect(smsc.submits.map((s) => [s.dataCoding, s.esmClass, s.concat])).toEqual(
      parts.map((_, i) => [8, 0x40, { reference: 77, total: parts.length, index: i + 1 }]),
    );
    expect(smsc.submits.map((s) => s.text).join('')).toBe(text);
  });

  it('decodes concatenated MO parts, GSM-7 and UCS-2, with their concatenation info', async () => {
    const smsc = await smscForTest();
    const { session, delivered } = sessionForTest(smsc.url());
    await readiness(session);
    await smsc.sendMo('+15550001111', '+15550009999', 'Price: 10€ [ok]', { splitAt: 8 });
    await smsc.sendMo('+15550001111', '+15550009999', 'Да 😀 да', { ucs2: true, splitAt: 4 });
    const decoded = delivered.map((d) => decodeShortMessage(d));
    expect(decoded.slice(0, 2).map((d) => d.text)).toEqual(['Price: 1', '0€ [ok]']);
    expect(decoded.slice(2).map((d) => d.text)).toEqual(['Да 😀', ' да']);
    expect(decoded.map((d) => [d.concat?.total, d.concat?.index])).toEqual([
      [2, 1],
      [2, 2],
      [2, 1],
      [2, 2],
    ]);
    expect(decoded[0].concat?.reference).not.toBe(decoded[2].concat?.reference);
    expect(delivered.map((d) => d.dataCoding)).toEqual([0, 0, 8, 8]);
  });

  it('decodes a long MO split by the loopback SMSC on its own (GSM-7 with euro signs, and UCS-2)', async () => {
    const smsc = await smscForTest();
    const { session, delivered } = sessionForTest(smsc.url());
    await readiness(session);
    const gsm = 'Total: 10€ '.repeat(20);
    const cyrillic = 'Привет! '.repeat(20);
    await smsc.sendMo('+15550001111', '+15550009999', gsm);
    await smsc.sendMo('+15550001111', '+15550009999', cyrillic);
    const decoded = delivered.map((d) => decodeShortMessage(d));
    const gsmParts = decoded.filter((d) => d.concat?.total === countSegments(gsm));
    expect(gsmParts.map((d) => d.text).join('')).toBe(gsm);
    const ucsParts = decoded.filter((d) => d.concat?.total === countSegments(cyrillic));
    expect(ucsParts.map((d) => d.text).join('')).toBe(cyrillic);
    expect(delivered).toHaveLength(countSegments(gsm) + countSegments(cyrillic));
  });
});
