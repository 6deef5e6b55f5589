// The webhooks of calls and recordings: status events to the call's status_callback, filtered by its
// status_callback_event (`completed` standing for every final event), and the recordings' events.
import type { Tx } from '../../store/db.js';
import type { CallRow, RecordingRow } from '../../store/schema.js';
import type { WebhookService } from '../../webhooks/service.js';
import { FINAL_CALL_STATUSES, callView, recordingView } from '../view.js';

export type CallEventName = 'initiated' | 'ringing' | 'answered' | CallRow['status'];

export async function callEvent(webhooks: WebhookService, tx: Tx, row: CallRow, name: CallEventName): Promise<void> {
  if (!row.status_callback) return;
  const selector = FINAL_CALL_STATUSES.includes(name as CallRow['status']) ? 'completed' : name;
  if (row.status_callback_events !== null && !row.status_callback_events.split(' ').includes(selector)) return;
  await webhooks.enqueue(tx, {
    accountSid: row.account_sid,
    url: row.status_callback,
    type: `call.${name}`,
    resourceSid: row.sid,
    data: callView(row),
  });
}

/** `recording.completed` / `recording.failed` to the recording's callback, else the call's (see the Calls tag). */
export async function recordingEvent(
  webhooks: WebhookService,
  tx: Tx,
  recording: Omit<RecordingRow, 'audio' | 'segments'>,
  call: CallRow | undefined,
  publicUrl: string,
): Promise<void> {
  const url = recording.status_callback ?? call?.recording_status_callback ?? call?.status_callback;
  if (!url) return;
  await webhooks.enqueue(tx, {
    accountSid: recording.account_sid,
    url,
    type: `recording.${recording.status}`,
    resourceSid: recording.sid,
    data: recordingView(recording, publicUrl),
  });
}
