// One SMPP transceiver session to an SMSC, on node-smpp: bind, keep-alive, reconnect with backoff, a response
// timeout per request, the sending window and the TPS limit (node-smpp has none of these).
import type { Logger } from 'pino';

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

export class SmppSession {
  constructor(
    private readonly options: SmppSessionOptions,
    private readonly onDeliver: (pdu: DeliverSm) => Promise<void>,
  ) {}

  /** Connects and binds as transceiver; keeps reconnecting with backoff until close(). Never throws. */
  start(): void {
    throw new Error(`not yet ${this.options.url} ${typeof this.onDeliver}`);
  }

  /** Waits for a window slot and a TPS slot, then sends; settles once. */
  submit(part: SubmitPart): Promise<SubmitResult> {
    throw new Error(`not yet ${part.destinationAddr}`);
  }

  readiness(): SmppReadiness {
    return { ready: false, reason: 'not yet' };
  }

  /** Unbinds politely when bound, stops reconnecting, settles waiting submits as `retry`. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
