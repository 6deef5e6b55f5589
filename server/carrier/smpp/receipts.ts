// Delivery receipts: a deliver_sm whose esm_class says "SMSC delivery receipt" (or an intermediate
// notification), read from the TLVs receipted_message_id / message_state when the SMSC sends them (SMPP 3.4+),
// else from the text form of SMPP 3.4 appendix B: `id:... sub:... dlvrd:... submit date:... done date:...
// stat:DELIVRD err:000 text:...`.
import type { DeliverSm } from './session.js';

export interface Receipt {
  messageId: string;
  state: 'delivered' | 'undelivered' | 'expired' | 'rejected' | 'deleted' | 'unknown' | 'accepted' | 'enroute';
  /** The `err:` field as the SMSC wrote it (e.g. '000'), when present. */
  errorCode?: string;
}

type State = Receipt['state'];

const MESSAGE_TYPE_MASK = 0x3c;
const SMSC_DELIVERY_RECEIPT = 0x04;
const INTERMEDIATE_NOTIFICATION = 0x20;

/** message_state TLV values (SMPP 3.4 section 5.2.28; 9 is SMPP 5.0's SKIPPED). */
const STATE_BY_TLV: Record<number, State> = {
  0: 'enroute', // SCHEDULED
  1: 'enroute',
  2: 'delivered',
  3: 'expired',
  4: 'deleted',
  5: 'undelivered',
  6: 'accepted',
  7: 'unknown',
  8: 'rejected',
  9: 'undelivered',
};

/** `stat:` values by their first five letters, so DELIVRD and DELIVERED both read. */
const STATE_BY_STAT: Record<string, State> = {
  DELIV: 'delivered',
  UNDEL: 'undelivered',
  EXPIR: 'expired',
  REJEC: 'rejected',
  DELET: 'deleted',
  UNKNO: 'unknown',
  ACCEP: 'accepted',
  ENROU: 'enroute',
};

function receiptText(pdu: DeliverSm): string {
  const bytes =
    pdu.esmClass & 0x40 && pdu.shortMessage.length > 0
      ? pdu.shortMessage.subarray(1 + pdu.shortMessage[0])
      : pdu.shortMessage;
  if (pdu.dataCoding !== 8) return bytes.toString('latin1');
  // UCS-2 is two bytes a character: an odd last byte (a broken receipt) is no character.
  return Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)))
    .swap16()
    .toString('utf16le');
}

function field(text: string, name: string): string | undefined {
  return new RegExp(`(?:^|\\s)${name}:(\\S*)`, 'i').exec(text)?.[1] || undefined;
}

/** The receipt a deliver_sm carries; null when it is not a receipt, or names no message. */
export function parseReceipt(pdu: DeliverSm): Receipt | null {
  const type = pdu.esmClass & MESSAGE_TYPE_MASK;
  if (type !== SMSC_DELIVERY_RECEIPT && type !== INTERMEDIATE_NOTIFICATION) return null;
  const text = receiptText(pdu);
  const messageId = pdu.receiptedMessageId || field(text, 'id');
  if (!messageId) return null;
  const stat = field(text, 'stat')?.slice(0, 5).toUpperCase();
  const state =
    (pdu.messageState !== undefined ? STATE_BY_TLV[pdu.messageState] : undefined) ??
    (stat ? STATE_BY_STAT[stat] : undefined) ??
    // An intermediate notification that names no state says the message is on its way; a final receipt that
    // names none says the SMSC does not know what became of it.
    (type === INTERMEDIATE_NOTIFICATION ? 'enroute' : 'unknown');
  const errorCode = field(text, 'err');
  return errorCode ? { messageId, state, errorCode } : { messageId, state };
}
