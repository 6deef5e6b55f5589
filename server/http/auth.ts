// Every /v1 route needs an API key: "Authorization: Bearer <key>", checked against the stored hashes.
import type { NextFunction, Request, Response } from 'express';
import type { AccountService } from '../accounts/service.js';
import { errors } from '../errors.js';
import type { OperationInfo } from './spec.js';

/**
 * Keys are checked in one place, on /v1 (the validator's own security check is off): refuses to start when the
 * spec has an operation that needs a key outside it, which would otherwise be served without one.
 */
export function assertKeyedOperationsUnderV1(operations: readonly OperationInfo[]): void {
  const unguarded = operations.filter((op) => !op.public && !op.expressPath.startsWith('/v1/'));
  if (unguarded.length)
    throw new Error(`operations outside /v1 need an API key: ${unguarded.map((op) => op.operationId).join(', ')}`);
}

export function requireApiKey(accounts: AccountService) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const match = /^Bearer\s+(\S{1,512})\s*$/i.exec(req.get('authorization') ?? '');
    if (!match) return next(errors.missingApiKey());
    const account = await accounts.findByApiKey(match[1]);
    if (!account) return next(errors.invalidApiKey());
    req.account = account;
    next();
  };
}
