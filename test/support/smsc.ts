// A loopback SMSC on node-smpp's createServer, for the SMPP tests and the bench.

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
  /** enquire_link requests received so far. */
  enquireLinks: number;
  /** unbind requests received so far. */
  unbinds: number;
  /** command_status of every deliver_sm_resp received, in order. */
  deliverStatuses: number[];
  /** How the next submits are answered (default ok with ids 'smsc-1', 'smsc-2', ...). */
  respondWith(fn: (s: ReceivedSubmit) => { status: number; delayMs?: number } | 'never'): void;
  /** e.g. ESME_RINVPASWD; null accepts again. */
  refuseBinds(status: number | null): void;
  sendReceipt(messageId: string, stat: 'DELIVRD' | 'UNDELIV' | 'EXPIRED' | 'REJECTD', err?: string): Promise<void>;
  sendMo(from: string, to: string, text: string, opts?: { ucs2?: boolean; splitAt?: number }): Promise<void>;
  /** A receipt for every accepted submit. */
  autoReceipts(stat: 'DELIVRD' | null, delayMs?: number): void;
  waitFor(pred: () => boolean, timeoutMs: number): Promise<void>;
  /** Closes the listening socket and every session (a crash of the SMSC). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

export function startTestSmsc(options?: { port?: number; systemId?: string; password?: string }): Promise<TestSmsc> {
  throw new Error(`not yet ${options?.port}`);
}
