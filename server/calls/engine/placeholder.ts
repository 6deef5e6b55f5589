// Stands in for the call engine until the real one (part D2) is merged: it only stores what the API side's tests
// look at, and runs nothing (no dialing, no jobs, no events). The lead replaces it with the real engine.
import type { Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';
import type { HttpMethod } from '../twiml/verbs.js';
import type { JobHandling } from '../../jobs/job.js';
import type { CallEngine, CallInput } from './port.js';
import { errors } from '../../errors.js';
import { newSid } from '../../ids.js';
import { nowIso } from '../../clock.js';

export class PlaceholderEngine implements CallEngine {
  async place(): Promise<void> {}

  async receive(tx: Tx, from: string, to: string): Promise<CallRow> {
    const number = await tx.db
      .selectFrom('incoming_numbers')
      .select(['account_sid', 'voice_url', 'voice_method'])
      .where('phone_number', '=', to)
      .executeTakeFirstOrThrow();
    const now = tx.clock.now();
    const created = new Date(now).toISOString();
    const row: CallRow = {
      sid: newSid('call', now),
      account_sid: number.account_sid,
      parent_call_sid: null,
      from_number: from,
      to_number: to,
      direction: 'inbound',
      status: 'ringing',
      answered_by: null,
      url: number.voice_url,
      method: number.voice_method,
      twiml: null,
      status_callback: null,
      status_callback_events: null,
      recording_status_callback: null,
      record: 0,
      recording_channels: 1,
      timeout: 60,
      time_limit: 14400,
      duration: null,
      start_time: null,
      end_time: null,
      price: null,
      price_unit: 'USD',
      error_code: null,
      error_message: null,
      peer_sid: null,
      purpose: 'api',
      machine: null,
      step: 0,
      date_created: created,
      date_updated: created,
    };
    await tx.db.insertInto('calls').values(row).execute();
    return row;
  }

  async end(tx: Tx, call: CallRow, status: 'canceled' | 'completed'): Promise<CallRow> {
    const from =
      status === 'canceled' ? (['queued', 'ringing'] as const) : (['queued', 'ringing', 'in-progress'] as const);
    const now = nowIso(tx.clock);
    const ended = call.status === 'in-progress' ? 'completed' : 'canceled';
    const row = await tx.db
      .updateTable('calls')
      .set({ status: ended, end_time: now, duration: 0, date_updated: now, step: call.step + 1 })
      .where('sid', '=', call.sid)
      .where('status', 'in', from)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw errors.callNotModifiable(call.sid, `is ${call.status}`);
    return row;
  }

  async redirect(
    tx: Tx,
    call: CallRow,
    change: { url: string; method: HttpMethod } | { twiml: string },
  ): Promise<CallRow> {
    const set = 'twiml' in change ? { twiml: change.twiml } : { url: change.url, method: change.method, twiml: null };
    const row = await tx.db
      .updateTable('calls')
      .set({ ...set, date_updated: nowIso(tx.clock) })
      .where('sid', '=', call.sid)
      .where('status', 'in', ['queued', 'ringing', 'in-progress'])
      .returningAll()
      .executeTakeFirst();
    if (!row) throw errors.callNotModifiable(call.sid, `is ${call.status}`);
    return row;
  }

  input(_tx: Tx, call: CallRow, _input: CallInput): Promise<CallRow> {
    if (call.status !== 'in-progress') throw errors.callNotModifiable(call.sid, `is ${call.status}, not in-progress`);
    return Promise.resolve(call);
  }

  jobHandlers(): JobHandling[] {
    return [];
  }
}
