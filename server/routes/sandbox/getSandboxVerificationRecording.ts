// GET /v1/sandbox/verification-calls/{sid}/recording: what a call speaking a verification code said (sandbox only).
import type { Handler } from '../../http/operation.js';

export const getSandboxVerificationRecording: Handler<'getSandboxVerificationRecording'> = async ({
  account,
  params,
  services,
}) => ({
  status: 200,
  body: await services.verify.sandboxRecording(account.sid, params.sid),
  headers: { 'Content-Type': 'audio/wav' },
});
