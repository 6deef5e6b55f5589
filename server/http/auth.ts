// Every /v1 route needs an API key: "Authorization: Bearer <key>", checked against the stored hashes.
import type { NextFunction, Request, Response } from 'express';
import type { AccountService } from '../accounts/service.js';
import { errors } from '../errors.js';

export function requireApiKey(accounts: AccountService) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const match = /^Bearer\s+(\S{1,512})\s*$/i.exec(req.get('authorization') ?? '');
    if (!match) return next(errors.unauthorized());
    const account = await accounts.findByApiKey(match[1]);
    if (!account) return next(errors.unauthorized('The API key is not valid or has been revoked.'));
    req.account = account;
    next();
  };
}
