// GET /v1/recordings/{sid}/media: the WAV file of a completed recording of the account.
import type { Handler } from '../../http/operation.js';

export const getRecordingMedia: Handler<'getRecordingMedia'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.calls.media(account.sid, params.sid),
  headers: { 'Content-Type': 'audio/wav' },
});
