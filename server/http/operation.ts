// Typed operation handlers: each takes what the validated request carries and returns a status and body,
// both typed from generated/ by its operationId. Every spec operation gets a route; missing ones answer 501.
import type { Express, NextFunction, Request, Response } from 'express';
import type { operations } from '../../generated/openapi.js';
import type { Account } from '../accounts/service.js';
import type { Services } from '../services.js';
import { errors } from '../errors.js';
import { loadSpec, type OperationId } from './spec.js';

type Op<O extends OperationId> = operations[O];
type Content<T> = T extends { content: infer C } ? C : never;

export type RequestBody<O extends OperationId> = Op<O> extends { requestBody: infer B }
  ? Content<NonNullable<B>> extends { 'application/json': infer J }
    ? J
    : never
  : undefined;
export type PathParams<O extends OperationId> = Op<O>['parameters'] extends { path: infer P } ? NonNullable<P> : Record<string, never>;
export type QueryParams<O extends OperationId> = Op<O>['parameters'] extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;

type Responses<O extends OperationId> = Op<O>['responses'];
type SuccessCode<O extends OperationId> = Extract<keyof Responses<O>, 200 | 201 | 202 | 204>;
type BodyOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;

/** One of the operation's success responses, typed by its status. */
export type Reply<O extends OperationId> = {
  [S in SuccessCode<O>]: BodyOf<Responses<O>[S]> extends undefined
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: BodyOf<Responses<O>[S]>; headers?: Record<string, string> };
}[SuccessCode<O>];

export interface HandlerInput<O extends OperationId> {
  account: Account;
  body: RequestBody<O>;
  params: PathParams<O>;
  query: QueryParams<O>;
  req: Request;
  services: Services;
}

export type Handler<O extends OperationId> = (input: HandlerInput<O>) => Promise<Reply<O>>;

/** A table of handlers by operationId; a missing entry means "not implemented yet". */
export type HandlerTable = { [O in OperationId]?: Handler<O> };

export function mountOperations(app: Express, handlers: HandlerTable, services: Services): void {
  for (const op of loadSpec().operations) {
    if (op.public) continue;
    const handler = handlers[op.operationId] as Handler<OperationId> | undefined;
    app[op.method](op.expressPath, async (req: Request, res: Response, next: NextFunction) => {
      if (!handler) return next(errors.notImplemented(op.operationId));
      const input = { account: req.account!, body: req.body, params: req.params as any, query: req.query as any, req, services };
      const reply = (await handler(input)) as { status: number; body?: unknown; headers?: Record<string, string> };
      res.status(reply.status);
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      if (reply.body === undefined) res.end();
      else res.json(reply.body);
    });
  }
}
