// A loopback SMSC on node-smpp's createServer, for the SMPP tests and the bench: it accepts binds with its
// credentials, answers submit_sm as a test says (by default at once, with ids smsc-1, smsc-2, ...), counts the
// window the client keeps, and sends receipts and MO messages as deliver_sm on the newest bound session.
import type { AddressInfo } from 'node:net';
import type { PDU, Server, Session } from 'smpp';
import { decodeShortMessage } from '../../server/carrier/smpp/encoding.js';
import { smpp } from '../../server/carrier/smpp/library.js';
import { splitSegments } from '../../server/messages/segments.js';

export interface ReceivedSubmit {
  /** The system_id of the session it came on. */
  systemId: string;
  sequenceNumber: number;
  sourceAddr: string;
  sourceTon: number;
  sourceNpi: number;
  destinationAddr: string;
  destTon: number;
  destNpi: number;
  esmClass: number;
  dataCoding: number;
  registeredDelivery: number;
  /** As sent ('' when omitted). */
  validityPeriod: string;
  /** Raw short_message, UDH included. */
  shortMessage: Buffer;
  /** Decoded text of this part (UDH stripped) and its concatenation header, if any. */
  text: string;
  concat?: { reference: number; total: number; index: number };
  /** The message_id answered, when answered ESME_ROK. */
  messageId?: string;
}

export interface TestSmsc {
  port: number;
  /** smpp://SYSTEM_ID:PASSWORD@127.0.0.1:port (the accepted credentials by default). */
  url(systemId?: string, password?: string): string;
  /** Every submit_sm received, in order. */
  submits: ReceivedSubmit[];
  /** The most submit_sm seen without a response yet. */
  maxOutstanding: number;
  /** Successful binds so far. */
  binds: number;
  /** Refused binds so far. */
  refusedBinds: number;
  /** enquire_link requests received so far. */
  enquireLinks: number;
  /** unbind requests received so far. */
  unbinds: number;
  /** command_status of every deliver_sm_resp received, in order. */
  deliverStatuses: number[];
  /** Numbers the next accepted submits from `n` again (an SMSC whose id counter started over): ids repeat. */
  reuseIdsFrom(n: number): void;
  /** How the next submits are answered (default ok with ids 'smsc-1', 'smsc-2', ...). */
  respondWith(fn: (s: ReceivedSubmit) => { status: number; delayMs?: number } | 'never'): void;
  /** e.g. ESME_RINVPASWD; null accepts again. */
  refuseBinds(status: number | null): void;
  /**
   * A receipt (esm_class 0x04) for a message id, in the text form and the TLVs receipted_message_id and
   * message_state, from the submit's destination to its source; err defaults to 000 for DELIVRD, else 001.
   * Resolves once the client answered it (its status is then in deliverStatuses); rejects when nobody is bound.
   */
  sendReceipt(messageId: string, stat: 'DELIVRD' | 'UNDELIV' | 'EXPIRED' | 'REJECTD', err?: string): Promise<void>;
  /**
   * An MO message (E.164 numbers are sent without their '+'), GSM-7 when it can be unless `ucs2`; split as
   * segments.ts splits (160/153 septets, 70/67 units), or into parts of `splitAt` characters each, every part with
   * a UDH 05 00 03 when there is more than one. Resolves once the client answered every part.
   */
  /** `partsSent`: only the first parts of the message are sent (as if the SMSC died then), the rest never come. */
  sendMo(
    from: string,
    to: string,
    text: string,
    opts?: { ucs2?: boolean; splitAt?: number; partsSent?: number },
  ): Promise<void>;
  /** A receipt for every accepted submit. */
  autoReceipts(stat: 'DELIVRD' | null, delayMs?: number): void;
  waitFor(pred: () => boolean, timeoutMs: number): Promise<void>;
  /** Closes the listening socket and every session (a crash of the SMSC). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  /** Stops (true) or resumes (false) answering enquire_link, as a dead link would. */
  muteEnquireLinks(mute: boolean): void;
  /** Sends enquire_link to the newest bound session; resolves with the command_status of the answer. */
  sendEnquireLink(): Promise<number>;
  /** Sends unbind to the newest bound session, as an SMSC going down for maintenance does. */
  sendUnbind(): Promise<number>;
}

type Responder = (s: ReceivedSubmit) => { status: number; delayMs?: number } | 'never';

const MESSAGE_STATE = { DELIVRD: 2, EXPIRED: 3, UNDELIV: 5, REJECTD: 8 } as const;
const ESM_CLASS_RECEIPT = 0x04;
const ESM_CLASS_UDHI = 0x40;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const int = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** GSM-7 default alphabet, unpacked (as encoding.ts sends it); null when `body` has other characters. */
function gsm7(body: string): Buffer | null {
  const table =
    '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
    '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
  const extension: Record<string, number> = {
    '\f': 0x0a,
    '^': 0x14,
    '{': 0x28,
    '}': 0x29,
    '\\': 0x2f,
    '[': 0x3c,
    '~': 0x3d,
    ']': 0x3e,
    '|': 0x40,
    '€': 0x65,
  };
  const bytes: number[] = [];
  for (const ch of body) {
    const septet = table.indexOf(ch);
    if (septet >= 0 && septet !== 0x1b) bytes.push(septet);
    else if (ch in extension) bytes.push(0x1b, extension[ch]);
    else return null;
  }
  return Buffer.from(bytes);
}

function ucs2(body: string): Buffer {
  return Buffer.from(body, 'utf16le').swap16();
}

function smscTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    pad(date.getUTCFullYear() % 100) +
    pad(date.getUTCMonth() + 1) +
    pad(date.getUTCDate()) +
    pad(date.getUTCHours()) +
    pad(date.getUTCMinutes())
  );
}

export async function startTestSmsc(
  options: { port?: number; systemId?: string; password?: string; tls?: { key: string; cert: string } } = {},
): Promise<TestSmsc> {
  const systemId = options.systemId ?? 'test';
  const password = options.password ?? 'secret';
  let responder: Responder = () => ({ status: 0 });
  let bindRefusal: number | null = null;
  let enquireLinksMuted = false;
  let receipts: { stat: 'DELIVRD'; delayMs: number } | null = null;
  let nextId = 1;
  let reference = 0;
  let outstanding = 0;
  /** Bound sessions, newest last, with the submits each has not answered yet. */
  const bound: { session: Session; unanswered: Set<number> }[] = [];
  /** deliver_sm sent and not answered yet, by session and sequence number. */
  const awaiting = new Map<Session, Map<number, (status: number | null) => void>>();
  const submitsById = new Map<string, ReceivedSubmit>();
  let server: Server;

  const smsc: TestSmsc = {
    port: 0,
    url: (id = systemId, pw = password) =>
      `${options.tls ? 'smpps' : 'smpp'}://${encodeURIComponent(id)}:${encodeURIComponent(pw)}@127.0.0.1:${smsc.port}`,
    submits: [],
    maxOutstanding: 0,
    binds: 0,
    refusedBinds: 0,
    enquireLinks: 0,
    unbinds: 0,
    deliverStatuses: [],
    reuseIdsFrom(n) {
      nextId = n;
    },
    respondWith(fn) {
      responder = fn;
    },
    refuseBinds(status) {
      bindRefusal = status;
    },
    async sendReceipt(messageId, stat, err = stat === 'DELIVRD' ? '000' : '001') {
      const submit = submitsById.get(messageId);
      const now = smscTime(new Date());
      const body =
        `id:${messageId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:${now} done date:${now} ` +
        `stat:${stat} err:${err} text:${submit?.text.slice(0, 20) ?? ''}`;
      await deliver({
        source_addr_ton: submit?.destTon ?? 1,
        source_addr_npi: submit?.destNpi ?? 1,
        source_addr: submit?.destinationAddr ?? '',
        dest_addr_ton: submit?.sourceTon ?? 1,
        dest_addr_npi: submit?.sourceNpi ?? 1,
        destination_addr: submit?.sourceAddr ?? '',
        esm_class: ESM_CLASS_RECEIPT,
        data_coding: 0,
        short_message: Buffer.from(body, 'latin1'),
        receipted_message_id: messageId,
        message_state: MESSAGE_STATE[stat],
      });
    },
    async sendMo(from, to, body, opts = {}) {
      const asGsm7 = opts.ucs2 ? null : gsm7(body);
      const encode = (part: string) => (asGsm7 ? gsm7(part)! : ucs2(part));
      const chars = [...body];
      let parts: string[] = [];
      if (opts.splitAt) {
        for (let i = 0; i < chars.length; i += opts.splitAt) parts.push(chars.slice(i, i + opts.splitAt).join(''));
      } else if (asGsm7) {
        parts = splitSegments(body).parts;
      } else if (body.length <= 70) {
        parts = [body];
      } else {
        // UCS-2 forced on a GSM-7 text: parts of 67 units at most, no surrogate pair split.
        parts = [''];
        for (const ch of chars) {
          if (parts[parts.length - 1].length + ch.length > 67) parts.push('');
          parts[parts.length - 1] += ch;
        }
      }
      reference = (reference + 1) % 256;
      for (const [i, part] of parts.slice(0, opts.partsSent ?? parts.length).entries()) {
        const udh = parts.length > 1 ? Buffer.from([0x05, 0x00, 0x03, reference, parts.length, i + 1]) : null;
        await deliver({
          source_addr_ton: 1,
          source_addr_npi: 1,
          source_addr: from.replace(/^\+/, ''),
          dest_addr_ton: 1,
          dest_addr_npi: 1,
          destination_addr: to.replace(/^\+/, ''),
          esm_class: udh ? ESM_CLASS_UDHI : 0,
          data_coding: asGsm7 ? 0 : 8,
          short_message: udh ? Buffer.concat([udh, encode(part)]) : encode(part),
        });
      }
    },
    autoReceipts(stat, delayMs = 0) {
      receipts = stat ? { stat, delayMs } : null;
    },
    async waitFor(pred, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!pred()) {
        if (Date.now() > deadline) throw new Error(`test SMSC: condition not met within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of [...server.sessions]) session.destroy();
      await closed;
    },
    async restart() {
      await listen(smsc.port);
    },
    muteEnquireLinks(mute) {
      enquireLinksMuted = mute;
    },
    sendEnquireLink: () => request('enquire_link'),
    sendUnbind: () => request('unbind'),
  };

  /** Sends a request on the newest bound session; resolves with the command_status of its answer. */
  function request(command: string, fields: Record<string, unknown> = {}): Promise<number> {
    const target = bound.at(-1);
    if (!target) return Promise.reject(new Error(`test SMSC: no bound session to send ${command} to`));
    const pdu = new smpp.PDU(command, fields);
    return new Promise((resolve, reject) => {
      if (!target.session.send(pdu)) {
        reject(new Error('test SMSC: the session is not writable'));
        return;
      }
      let waiting = awaiting.get(target.session);
      if (!waiting) awaiting.set(target.session, (waiting = new Map()));
      waiting.set(pdu.sequence_number, (status) => {
        if (status === null) reject(new Error(`test SMSC: the session closed before it answered ${command}`));
        else resolve(status);
      });
    });
  }

  async function deliver(fields: Record<string, unknown>): Promise<void> {
    smsc.deliverStatuses.push(await request('deliver_sm', fields));
  }

  function answer(session: Session, unanswered: Set<number>, pdu: PDU, received: ReceivedSubmit): void {
    const decision = responder(received);
    if (decision === 'never') return;
    const respond = () => {
      if (!unanswered.delete(pdu.sequence_number)) return;
      outstanding -= 1;
      if (decision.status === 0) {
        received.messageId = `smsc-${nextId++}`;
        submitsById.set(received.messageId, received);
      }
      session.send(pdu.response({ command_status: decision.status, message_id: received.messageId ?? '' }));
      if (decision.status === 0 && receipts) {
        const { stat, delayMs } = receipts;
        const id = received.messageId!;
        setTimeout(() => void smsc.sendReceipt(id, stat).catch(() => undefined), delayMs);
      }
    };
    if (decision.delayMs) setTimeout(respond, decision.delayMs);
    else respond();
  }

  function accept(session: Session): void {
    let boundAs: string | null = null;
    const entry = { session, unanswered: new Set<number>() };
    session.on('error', () => undefined);
    session.on('close', () => {
      outstanding -= entry.unanswered.size;
      entry.unanswered.clear();
      const index = bound.indexOf(entry);
      if (index >= 0) bound.splice(index, 1);
      for (const settle of awaiting.get(session)?.values() ?? []) settle(null);
      awaiting.delete(session);
    });
    session.on('pdu', (pdu: PDU) => {
      if (pdu.isResponse()) {
        const settle = awaiting.get(session)?.get(pdu.sequence_number);
        awaiting.get(session)?.delete(pdu.sequence_number);
        settle?.(pdu.command_status);
        return;
      }
      switch (pdu.command) {
        case 'bind_transceiver': {
          const refusal =
            bindRefusal ??
            (text(pdu.system_id) !== systemId
              ? smpp.errors.ESME_RINVSYSID
              : text(pdu.password) !== password
                ? smpp.errors.ESME_RINVPASWD
                : null);
          if (refusal !== null) {
            smsc.refusedBinds += 1;
            session.send(pdu.response({ command_status: refusal }));
            return;
          }
          boundAs = text(pdu.system_id);
          smsc.binds += 1;
          bound.push(entry);
          session.send(pdu.response({ system_id: 'test-smsc' }));
          return;
        }
        case 'submit_sm': {
          if (boundAs === null) {
            session.send(pdu.response({ command_status: smpp.errors.ESME_RINVBNDSTS }));
            return;
          }
          const shortMessage = Buffer.isBuffer(pdu.short_message) ? pdu.short_message : Buffer.alloc(0);
          const decoded = decodeShortMessage({
            esmClass: int(pdu.esm_class),
            dataCoding: int(pdu.data_coding),
            shortMessage,
          });
          const received: ReceivedSubmit = {
            systemId: boundAs,
            sequenceNumber: pdu.sequence_number,
            sourceAddr: text(pdu.source_addr),
            sourceTon: int(pdu.source_addr_ton),
            sourceNpi: int(pdu.source_addr_npi),
            destinationAddr: text(pdu.destination_addr),
            destTon: int(pdu.dest_addr_ton),
            destNpi: int(pdu.dest_addr_npi),
            esmClass: int(pdu.esm_class),
            dataCoding: int(pdu.data_coding),
            registeredDelivery: int(pdu.registered_delivery),
            validityPeriod: text(pdu.validity_period),
            shortMessage,
            text: decoded.text,
            ...(decoded.concat ? { concat: decoded.concat } : {}),
          };
          smsc.submits.push(received);
          entry.unanswered.add(pdu.sequence_number);
          outstanding += 1;
          smsc.maxOutstanding = Math.max(smsc.maxOutstanding, outstanding);
          answer(session, entry.unanswered, pdu, received);
          return;
        }
        case 'enquire_link':
          smsc.enquireLinks += 1;
          if (!enquireLinksMuted) session.send(pdu.response());
          return;
        case 'unbind':
          smsc.unbinds += 1;
          session.send(pdu.response());
          return;
        default:
          session.send(
            new smpp.PDU('generic_nack', {
              sequence_number: pdu.sequence_number,
              command_status: smpp.errors.ESME_RINVCMDID,
            }),
          );
      }
    });
  }

  async function listen(port: number): Promise<void> {
    server = options.tls ? smpp.createServer(options.tls, accept) : smpp.createServer(accept);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    smsc.port = (server.address() as AddressInfo).port;
  }

  await listen(options.port ?? 0);
  return smsc;
}
