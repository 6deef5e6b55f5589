// Every implemented operation, by operationId. An operation missing here answers 501 not_implemented.
import type { HandlerTable } from '../http/operation.js';
import { withIdempotency } from '../idempotency/middleware.js';
import { sendMessage } from './messages/sendMessage.js';
import { listMessages } from './messages/listMessages.js';
import { getMessage } from './messages/getMessage.js';
import { deleteMessage } from './messages/deleteMessage.js';
import { injectInboundMessage } from './sandbox/injectInboundMessage.js';
import { makeCall } from './calls/makeCall.js';
import { listCalls } from './calls/listCalls.js';
import { getCall } from './calls/getCall.js';
import { updateCall } from './calls/updateCall.js';
import { listCallRecordings } from './calls/listCallRecordings.js';
import { getRecordingMedia } from './calls/getRecordingMedia.js';
import { injectInboundCall } from './sandbox/injectInboundCall.js';
import { sendCallInput } from './sandbox/sendCallInput.js';
import { lookupPhoneNumber } from './lookups/lookupPhoneNumber.js';
import { lookupPhoneNumbersBatch } from './lookups/lookupPhoneNumbersBatch.js';
import { searchLocalNumbers } from './numbers/searchLocalNumbers.js';
import { searchTollFreeNumbers } from './numbers/searchTollFreeNumbers.js';
import { provisionPhoneNumber } from './numbers/provisionPhoneNumber.js';
import { listIncomingPhoneNumbers } from './numbers/listIncomingPhoneNumbers.js';
import { getIncomingPhoneNumber } from './numbers/getIncomingPhoneNumber.js';
import { updateIncomingPhoneNumber } from './numbers/updateIncomingPhoneNumber.js';
import { releasePhoneNumber } from './numbers/releasePhoneNumber.js';
import { createAddress } from './addresses/createAddress.js';
import { listAddresses } from './addresses/listAddresses.js';
import { getAddress } from './addresses/getAddress.js';
import { deleteAddress } from './addresses/deleteAddress.js';
import { sendVerification } from './verify/sendVerification.js';
import { checkVerification } from './verify/checkVerification.js';
import { getVerification } from './verify/getVerification.js';
import { updateVerification } from './verify/updateVerification.js';
import { getSandboxVerificationCode } from './sandbox/getSandboxVerificationCode.js';
import { getSandboxVerificationRecording } from './sandbox/getSandboxVerificationRecording.js';
import { createProxySession } from './proxy/createProxySession.js';
import { listProxySessions } from './proxy/listProxySessions.js';
import { getProxySession } from './proxy/getProxySession.js';
import { endProxySession } from './proxy/endProxySession.js';
import { listProxyInteractions } from './proxy/listProxyInteractions.js';
import { getAccount } from './account/getAccount.js';
import { updateAccount } from './account/updateAccount.js';
import { rotateWebhookSecret } from './account/rotateWebhookSecret.js';

// Operations that declare the Idempotency-Key header get the shared replay mechanism.
export const handlers: HandlerTable = withIdempotency({
  sendMessage,
  listMessages,
  getMessage,
  deleteMessage,
  injectInboundMessage,
  makeCall,
  listCalls,
  getCall,
  updateCall,
  listCallRecordings,
  getRecordingMedia,
  injectInboundCall,
  sendCallInput,
  lookupPhoneNumber,
  lookupPhoneNumbersBatch,
  searchLocalNumbers,
  searchTollFreeNumbers,
  provisionPhoneNumber,
  listIncomingPhoneNumbers,
  getIncomingPhoneNumber,
  updateIncomingPhoneNumber,
  releasePhoneNumber,
  createAddress,
  listAddresses,
  getAddress,
  deleteAddress,
  sendVerification,
  checkVerification,
  getVerification,
  updateVerification,
  getSandboxVerificationCode,
  getSandboxVerificationRecording,
  createProxySession,
  listProxySessions,
  getProxySession,
  endProxySession,
  listProxyInteractions,
  getAccount,
  updateAccount,
  rotateWebhookSecret,
});
