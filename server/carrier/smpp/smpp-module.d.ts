// Types for what we use of node-smpp 0.5.1 (it ships none): the client and server sessions, PDUs, the status
// table and the parameter tables that library.ts adjusts. Fields of a PDU depend on its command, so they are
// read through an index signature and narrowed where they are used.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';
  import type { ConnectionOptions, TLSSocket } from 'node:tls';

  export class PDU {
    constructor(command: string, options?: Record<string, unknown>);
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    /** The response to this request, with its sequence_number (a generic_nack for an unknown command). */
    response(options?: Record<string, unknown>): PDU;
    toBuffer(): Buffer;
    [field: string]: unknown;
  }

  export interface ConnectOptions extends ConnectionOptions {
    host?: string;
    port?: number;
    /** Connect over TLS (node:tls), with the other options passed to tls.connect. */
    tls?: boolean;
    auto_enquire_link_period?: number;
  }

  export class Session extends EventEmitter {
    socket: Socket | TLSSocket;
    /** The Server this session was accepted by (server side only). */
    server?: Server;
    /** Writes `pdu` (numbering a request); false when the socket is not writable. */
    send(pdu: PDU, responseCallback?: (pdu: PDU) => void, sendCallback?: (pdu: PDU) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
    on(event: 'pdu', listener: (pdu: PDU) => void): this;
    on(event: 'connect' | 'secureConnect' | 'close', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
  }

  export interface Server extends NetServer {
    sessions: Session[];
  }

  export interface ServerOptions {
    /** With key and cert the server speaks TLS. */
    key?: string | Buffer;
    cert?: string | Buffer;
  }

  export function connect(options: ConnectOptions, listener?: () => void): Session;
  export function createServer(listener: (session: Session) => void): Server;
  export function createServer(options: ServerOptions, listener: (session: Session) => void): Server;

  interface ParamDefinition {
    filter?: { encode: (value: unknown) => unknown; decode: (value: unknown, skipUdh?: boolean) => unknown };
  }
  export const commands: Record<string, { id: number; params?: Record<string, ParamDefinition> }>;
  export const tlvs: Record<string, ParamDefinition & { id: number }>;
  export const filters: Record<'message' | 'time', NonNullable<ParamDefinition['filter']>>;
  /** Command statuses by name: ESME_ROK, ESME_RTHROTTLED, ... */
  export const errors: Record<string, number>;
}
