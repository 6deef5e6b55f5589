// Every implemented operation, by operationId. An operation missing here answers 501 not_implemented.
import type { HandlerTable } from '../http/operation.js';
import { withIdempotency } from '../idempotency/middleware.js';
import { sendMessage } from './messages/sendMessage.js';
import { listMessages } from './messages/listMessages.js';
import { getMessage } from './messages/getMessage.js';
import { deleteMessage } from './messages/deleteMessage.js';
import { injectInboundMessage } from './sandbox/injectInboundMessage.js';
import { lookupPhoneNumber } from './lookups/lookupPhoneNumber.js';
import { lookupPhoneNumbersBatch } from './lookups/lookupPhoneNumbersBatch.js';

// Operations that declare the Idempotency-Key header get the shared replay mechanism.
export const handlers: HandlerTable = withIdempotency({
  sendMessage,
  listMessages,
  getMessage,
  deleteMessage,
  injectInboundMessage,
  lookupPhoneNumber,
  lookupPhoneNumbersBatch,
});
