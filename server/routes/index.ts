// Every implemented operation, by operationId. An operation missing here answers 501 not_implemented.
import type { HandlerTable } from '../http/operation.js';
import { lookupPhoneNumber } from './lookups/lookupPhoneNumber.js';
import { lookupPhoneNumbersBatch } from './lookups/lookupPhoneNumbersBatch.js';

export const handlers: HandlerTable = {
  lookupPhoneNumber,
  lookupPhoneNumbersBatch,
};
