// One SMPP transceiver session to an SMSC, on node-smpp: bind, keep-alive, reconnect with backoff, a response
// timeout per request, the sending window and the TPS limit (node-smpp has none of these). node-smpp's response
// callbacks never fire when the link drops, so the session numbers and tracks its own requests per connection
// and settles each exactly once: by its response, its timeout, or the drop. Timing here is protocol timing, on
// node timers, not the server's Clock.
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { PDU, Session } from 'smpp';
import { ESME_RMSGQFUL, ESME_ROK, ESME_RTHROTTLED, ESME_RX_T_APPN, smpp, statusName } from './library.js';
import { parseSmppUrl, type SmppTarget } from './url.js';

export interface SmppSessionOptions {
  /** smpp://SYSTEM_ID:PASSWORD@HOST:PORT or smpps://... (TLS) */
  url: string;
  systemType?: string;
  /** Outstanding submit_sm without a response, at most (SMPP_WINDOW). */
  window: number;
  /** submit_sm per second, at most (SMPP_TPS). */
  tps: number;
  /** A submit_sm without a response after this long settles as `timeout` (default 10 s). */
  responseTimeoutMs: number;
  /** enquire_link period (default 30 s). */
  enquireLinkMs: number;
  /** Reconnect backoff after a drop or a failed bind (e.g. 250 ms doubling to 30 s, with jitter). */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  logger: Logger;
  /** Extra node:tls options for smpps:// (a private CA, for instance). */
  tls?: ConnectionOptions;
}

/** One submit_sm (one part of a message). */
export interface SubmitPart {
  sourceAddr: string;
  sourceTon: number;
  sourceNpi: number;
  destinationAddr: string;
  destTon: number;
  destNpi: number;
  /** 0x40 when shortMessage starts with a UDH. */
  esmClass: number;
  /** 0 (GSM-7 default alphabet) or 8 (UCS-2). */
  dataCoding: number;
  /** Encoded, UDH included when esmClass has 0x40. */
  shortMessage: Buffer;
  /** 1: receipt requested. */
  registeredDelivery: number;
  /** SMPP relative or absolute time format, or omitted. */
  validityPeriod?: string;
}

export type SubmitResult =
  | { kind: 'accepted'; messageId: string }
  /** ESME_RTHROTTLED, ESME_RMSGQFUL, or not bound right now: try again later, nothing was accepted. */
  | { kind: 'retry'; commandStatus: number | null; reason: string }
  /** Any other error status: permanent for this part. `statusName` e.g. 'ESME_RINVDSTADR'. */
  | { kind: 'rejected'; commandStatus: number; statusName: string }
  /** No response within responseTimeoutMs (or the link dropped while waiting): the SMSC may or may not have it. */
  | { kind: 'timeout' };

/** A deliver_sm as received (receipt or MO), decoded enough for the carrier. */
export interface DeliverSm {
  sourceAddr: string;
  sourceTon: number;
  destinationAddr: string;
  destTon: number;
  esmClass: number;
  dataCoding: number;
  /** Raw, UDH included when esmClass has 0x40. */
  shortMessage: Buffer;
  /** TLV 0x001E */
  receiptedMessageId?: string;
  /** TLV 0x0427 */
  messageState?: number;
}

export interface SmppReadiness {
  ready: boolean;
  /** e.g. 'bind refused: ESME_RINVPASWD' */
  reason?: string;
}

const ESME_RINVCMDID = smpp.errors.ESME_RINVCMDID;
/** SMPP 3.4: the version we speak (receipts with TLVs; 5.0 adds nothing we use). */
const INTERFACE_VERSION = 0x34;

/** A request awaiting its response; settled with null on timeout or when the link drops. */
interface Pending {
  timer: NodeJS.Timeout;
  settle: (response: PDU | null) => void;
}

/** One connection: its own numbering of outstanding requests, so a drop settles exactly what it carried. */
interface Link {
  session: Session;
  pending: Map<number, Pending>;
  bound: boolean;
  /** Submits sent on this link and not settled yet. */
  inFlight: number;
  /** Why it failed, when known before it closes (the reason readiness reports). */
  failure?: string;
  timers: NodeJS.Timeout[];
}

interface Waiting {
  part: SubmitPart;
  resolve: (result: SubmitResult) => void;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const int = (value: unknown): number => (typeof value === 'number' ? value : 0);

export class SmppSession {
  private readonly target: SmppTarget;
  private state: 'idle' | 'running' | 'closed' = 'idle';
  private link: Link | null = null;
  private reason = 'not started';
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pumpTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private readonly queue: Waiting[] = [];
  /** Token bucket for the TPS limit: a burst of a fiftieth of a second's worth absorbs timer lateness. */
  private readonly burst: number;
  private tokens: number;
  private refilledAt = performance.now();

  constructor(
    private readonly options: SmppSessionOptions,
    private readonly onDeliver: (pdu: DeliverSm) => Promise<void>,
  ) {
    this.target = parseSmppUrl(options.url);
    if (!(options.window >= 1) || !(options.tps > 0)) throw new Error('an SMPP window and TPS must be positive');
    this.burst = Math.max(1, Math.floor(options.tps / 50));
    this.tokens = this.burst;
  }

  /** Connects and binds as transceiver; keeps reconnecting with backoff until close(). Never throws. */
  start(): void {
    if (this.state !== 'idle') return;
    this.state = 'running';
    this.reason = 'connecting';
    this.connect();
  }

  /** Waits for a window slot and a TPS slot, then sends; settles once. */
  submit(part: SubmitPart): Promise<SubmitResult> {
    if (this.state === 'closed') return Promise.resolve(retry('session closed'));
    if (!this.link?.bound) return Promise.resolve(retry(`not bound: ${this.reason}`));
    return new Promise((resolve) => {
      this.queue.push({ part, resolve });
      this.pump();
    });
  }

  readiness(): SmppReadiness {
    return this.link?.bound ? { ready: true } : { ready: false, reason: this.reason };
  }

  /** Unbinds politely when bound, stops reconnecting, settles waiting submits as `retry`. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.pumpTimer);
    for (const waiting of this.queue.splice(0)) waiting.resolve(retry('session closed'));
    const link = this.link;
    if (!link) {
      this.reason = 'session closed';
      return;
    }
    const closed = new Promise<void>((resolve) => link.session.once('close', () => resolve()));
    if (link.bound) {
      // Submits in flight get their responses first, as long as they would be waited for anyway.
      const deadline = performance.now() + this.options.responseTimeoutMs;
      while (link.inFlight > 0 && performance.now() < deadline && this.link === link) await sleep(10);
      if (this.link === link) {
        const unbound = new Promise<void>((resolve) => {
          if (!this.request(link, new smpp.PDU('unbind'), () => resolve())) resolve();
        });
        await unbound;
      }
    }
    if (this.link === link) {
      if (link.bound) {
        link.session.close();
        link.timers.push(setTimeout(() => link.session.destroy(), this.options.responseTimeoutMs));
      } else {
        link.session.destroy();
      }
      await closed;
    }
    this.reason = 'session closed';
  }

  private connect(): void {
    const { host, port, tls } = this.target;
    const session = smpp.connect({
      ...this.options.tls,
      host,
      port,
      tls,
      servername: tls && !isIP(host) ? host : undefined,
    });
    const link: Link = { session, pending: new Map(), bound: false, inFlight: 0, timers: [] };
    this.link = link;
    session.socket.setNoDelay(true);
    // Connecting and binding share one deadline: a host that never answers is a failed attempt like any other.
    link.timers.push(
      setTimeout(() => {
        if (link.bound) return;
        link.failure ??= `no bind within ${this.options.responseTimeoutMs} ms`;
        session.destroy();
      }, this.options.responseTimeoutMs),
    );
    session.on('error', (error: NodeJS.ErrnoException) => {
      link.failure ??= `connection failed: ${error.code ?? error.message}`;
      this.options.logger.debug({ err: error }, 'smpp connection error');
      // A socket error closes the socket; a PDU node-smpp cannot parse leaves it open but stuck: close it too.
      session.destroy();
    });
    session.on('close', () => this.closed(link));
    session.on(tls ? 'secureConnect' : 'connect', () => this.bind(link));
    session.on('pdu', (pdu: PDU) => this.received(link, pdu));
  }

  private bind(link: Link): void {
    const pdu = new smpp.PDU('bind_transceiver', {
      system_id: this.target.systemId,
      password: this.target.password,
      system_type: this.options.systemType ?? '',
      interface_version: INTERFACE_VERSION,
    });
    this.request(link, pdu, (response) => {
      if (response?.command_status === ESME_ROK) {
        link.bound = true;
        this.attempts = 0;
        this.reason = 'bound';
        this.options.logger.info({ host: this.target.host, port: this.target.port }, 'smpp bound');
        link.timers.push(setInterval(() => this.enquireLink(link), this.options.enquireLinkMs));
        this.pump();
        return;
      }
      if (this.link !== link) return; // the link closed first; closed() has said why
      link.failure = response ? `bind refused: ${statusName(response.command_status)}` : 'bind unanswered';
      this.options.logger.warn({ reason: link.failure }, 'smpp bind failed');
      link.session.destroy();
    });
  }

  private enquireLink(link: Link): void {
    this.request(link, new smpp.PDU('enquire_link'), (response) => {
      if (response) return;
      link.failure ??= 'enquire_link unanswered';
      link.session.destroy();
    });
  }

  /** Sends a request and settles `settle` once; false when the link cannot take it (settle is not called). */
  private request(link: Link, pdu: PDU, settle: (response: PDU | null) => void): boolean {
    if (this.link !== link || !link.session.send(pdu)) return false;
    const sequence = pdu.sequence_number;
    const timer = setTimeout(() => {
      link.pending.delete(sequence);
      settle(null);
    }, this.options.responseTimeoutMs);
    link.pending.set(sequence, { timer, settle });
    return true;
  }

  private received(link: Link, pdu: PDU): void {
    if (pdu.isResponse()) {
      const pending = link.pending.get(pdu.sequence_number);
      if (!pending) {
        this.options.logger.debug({ command: pdu.command, sequence: pdu.sequence_number }, 'smpp late response');
        return;
      }
      link.pending.delete(pdu.sequence_number);
      clearTimeout(pending.timer);
      pending.settle(pdu);
      return;
    }
    switch (pdu.command) {
      case 'deliver_sm':
        this.deliver(link, pdu);
        return;
      case 'enquire_link':
        link.session.send(pdu.response());
        return;
      case 'unbind':
        link.failure = 'unbound by the SMSC';
        link.session.send(pdu.response());
        link.session.close();
        return;
      case 'alert_notification': // has no response
        return;
      default:
        link.session.send(
          new smpp.PDU('generic_nack', { sequence_number: pdu.sequence_number, command_status: ESME_RINVCMDID }),
        );
    }
  }

  /** Answers a deliver_sm only once onDeliver has settled: ESME_ROK when it stored it, else a temporary error. */
  private deliver(link: Link, pdu: PDU): void {
    const shortMessage = Buffer.isBuffer(pdu.short_message) ? pdu.short_message : Buffer.alloc(0);
    const delivered: DeliverSm = {
      sourceAddr: text(pdu.source_addr),
      sourceTon: int(pdu.source_addr_ton),
      destinationAddr: text(pdu.destination_addr),
      destTon: int(pdu.dest_addr_ton),
      esmClass: int(pdu.esm_class),
      dataCoding: int(pdu.data_coding),
      // A long MO may come whole in message_payload instead.
      shortMessage:
        shortMessage.length === 0 && Buffer.isBuffer(pdu.message_payload) ? pdu.message_payload : shortMessage,
    };
    if (typeof pdu.receipted_message_id === 'string') delivered.receiptedMessageId = pdu.receipted_message_id;
    if (typeof pdu.message_state === 'number') delivered.messageState = pdu.message_state;
    void Promise.resolve()
      .then(() => this.onDeliver(delivered))
      .then(
        () => ESME_ROK,
        (error: unknown) => {
          this.options.logger.warn({ err: error }, 'smpp deliver_sm not taken; the SMSC will deliver it again');
          return ESME_RX_T_APPN;
        },
      )
      .then((status) => {
        if (this.link === link) link.session.send(pdu.response({ command_status: status }));
      });
  }

  /** Sends waiting submits while the window has room and the TPS bucket a token. */
  private pump(): void {
    const link = this.link;
    if (!link?.bound || this.pumpTimer) return;
    while (this.queue.length > 0 && link.inFlight < this.options.window) {
      const waitMs = this.takeToken();
      if (waitMs > 0) {
        this.pumpTimer = setTimeout(() => {
          this.pumpTimer = undefined;
          this.pump();
        }, waitMs);
        return;
      }
      this.send(link, this.queue.shift()!);
    }
  }

  /** 0 when a token was taken, else how long until one is there. */
  private takeToken(): number {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.options.tps) / 1000);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.options.tps));
  }

  private send(link: Link, { part, resolve }: Waiting): void {
    const pdu = new smpp.PDU('submit_sm', {
      source_addr_ton: part.sourceTon,
      source_addr_npi: part.sourceNpi,
      source_addr: part.sourceAddr,
      dest_addr_ton: part.destTon,
      dest_addr_npi: part.destNpi,
      destination_addr: part.destinationAddr,
      esm_class: part.esmClass,
      registered_delivery: part.registeredDelivery,
      data_coding: part.dataCoding,
      validity_period: part.validityPeriod ?? '',
      short_message: part.shortMessage,
    });
    link.inFlight += 1;
    const sent = this.request(link, pdu, (response) => {
      link.inFlight -= 1;
      resolve(outcome(response));
      this.pump();
    });
    if (!sent) {
      link.inFlight -= 1;
      resolve(retry('link not writable'));
    }
  }

  private closed(link: Link): void {
    for (const timer of link.timers) clearTimeout(timer);
    if (this.link !== link) return;
    this.link = null;
    const wasBound = link.bound;
    link.bound = false;
    this.reason = link.failure ?? (wasBound ? 'connection lost' : 'connection closed before bind');
    if (wasBound) this.options.logger.warn({ reason: this.reason }, 'smpp link down');
    for (const pending of link.pending.values()) {
      clearTimeout(pending.timer);
      pending.settle(null);
    }
    link.pending.clear();
    for (const waiting of this.queue.splice(0)) waiting.resolve(retry(`link dropped: ${this.reason}`));
    if (this.state === 'running') this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const { reconnectMinMs, reconnectMaxMs } = this.options;
    const ceiling = Math.min(reconnectMaxMs, reconnectMinMs * 2 ** Math.min(this.attempts, 30));
    this.attempts += 1;
    // Jitter between half and all of the ceiling, so many instances do not reconnect in step.
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.reconnectTimer = setTimeout(() => {
      if (this.state === 'running') this.connect();
    }, delay);
  }
}

function retry(reason: string, commandStatus: number | null = null): SubmitResult {
  return { kind: 'retry', commandStatus, reason };
}

function outcome(response: PDU | null): SubmitResult {
  if (!response) return { kind: 'timeout' };
  const status = response.command_status;
  if (status === ESME_ROK) return { kind: 'accepted', messageId: text(response.message_id) };
  if (status === ESME_RTHROTTLED || status === ESME_RMSGQFUL) return retry(statusName(status), status);
  return { kind: 'rejected', commandStatus: status, statusName: statusName(status) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
