// Every implemented operation, by operationId. An operation missing here answers 501 not_implemented.
import type { HandlerTable } from '../http/operation.js';

export const handlers: HandlerTable = {};
