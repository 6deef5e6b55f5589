// What the receipts of a text's parts add up to: delivered once every part is, else the first failure a receipt
// reported (`undelivered` for UNDELIV, EXPIRED, DELETED, UNKNOWN; `failed` for REJECTD), with error code SMPP_<stat>.
import type { SmppPartRow } from '../../store/schema.js';

export type Verdict =
  { status: 'delivered' } | { status: 'undelivered' | 'failed'; errorCode: string; errorMessage: string };

const FAILURES: Record<string, { status: 'undelivered' | 'failed'; stat: string }> = {
  undelivered: { status: 'undelivered', stat: 'UNDELIV' },
  expired: { status: 'undelivered', stat: 'EXPIRED' },
  deleted: { status: 'undelivered', stat: 'DELETED' },
  unknown: { status: 'undelivered', stat: 'UNKNOWN' },
  rejected: { status: 'failed', stat: 'REJECTD' },
};

/** The text's outcome by its parts' receipts so far; null while some part has none yet. */
export function verdictOf(parts: SmppPartRow[]): Verdict | null {
  for (const part of parts) {
    const failure = FAILURES[part.state];
    if (!failure) continue;
    const of = parts.length > 1 ? ` (part ${part.part_index + 1} of ${parts.length})` : '';
    const err = part.error_code ? `, err:${part.error_code}` : '';
    return {
      status: failure.status,
      errorCode: `SMPP_${failure.stat}`,
      errorMessage: `The SMSC reported the message ${failure.stat}${of}${err}.`,
    };
  }
  return parts.length && parts.every((p) => p.state === 'delivered') ? { status: 'delivered' } : null;
}
