// node-smpp, set up for our use: it decodes short_message into text by data_coding as it parses a PDU, which
// loses the bytes (unknown GSM-7 septets become spaces, the UDH is split off); encoding.ts decodes them
// instead. So the library's decode step keeps short_message and message_payload as the raw Buffers, and time
// fields as the strings sent. Encoding is untouched: we always hand it Buffers and strings, which it passes on.
import smpp from 'smpp';

const keep = (value: unknown): unknown => value;

for (const command of Object.values(smpp.commands)) {
  for (const param of Object.values(command.params ?? {})) {
    if (param.filter === smpp.filters.message || param.filter === smpp.filters.time) {
      param.filter = { encode: param.filter.encode, decode: keep };
    }
  }
}
smpp.tlvs.message_payload.filter = { encode: smpp.filters.message.encode, decode: keep };

/** The name of a command status (ESME_RINVDSTADR), or its hexadecimal value when it has none. */
export function statusName(status: number): string {
  for (const [name, value] of Object.entries(smpp.errors)) if (value === status) return name;
  return `0x${status.toString(16).padStart(8, '0')}`;
}

export const ESME_ROK = smpp.errors.ESME_ROK;
export const ESME_RTHROTTLED = smpp.errors.ESME_RTHROTTLED;
export const ESME_RMSGQFUL = smpp.errors.ESME_RMSGQFUL;
export const ESME_RX_T_APPN = smpp.errors.ESME_RX_T_APPN;

export { smpp };
