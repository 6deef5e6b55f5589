// Typed operation handlers: each takes what the validated request carries and returns a status and body,
// both typed from generated/ by its operationId. Every spec operation gets a route; missing ones answer 501.
import type { Express, NextFunction, Request, Response } from 'express';
import type { operations } from '../../generated/openapi.js';
import type { Account } from '../accounts/service.js';
import type { Services } from '../services.js';
import { errors } from '../errors.js';
import { loadSpec, type OperationId } from './spec.js';
import type { ResponseRecorder } from '../idempotency/recorder.js';

type Op<O extends OperationId> = operations[O];
type Content<T> = T extends { content: infer C } ? C : never;

type RequestBody<O extends OperationId> =
  Op<O> extends { requestBody: infer B }
    ? Content<NonNullable<B>> extends { 'application/json': infer J }
      ? J
      : never
    : undefined;
type PathParams<O extends OperationId> = Op<O>['parameters'] extends { path: infer P }
  ? NonNullable<P>
  : Record<string, never>;
export type QueryParams<O extends OperationId> = Op<O>['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : Record<string, never>;

type Responses<O extends OperationId> = Op<O>['responses'];
type SuccessCode<O extends OperationId> = Extract<keyof Responses<O>, 200 | 201 | 202 | 204>;
/** JSON bodies as their schema; a binary one (e.g. `audio/wav`, `format: binary`) as bytes. */
type BodyOf<R> = R extends { content: { 'application/json': infer J } }
  ? J
  : R extends { content: Record<string, unknown> }
    ? Buffer
    : undefined;

/** One of the operation's success responses, typed by its status. */
type Reply<O extends OperationId> = {
  [S in SuccessCode<O>]: BodyOf<Responses<O>[S]> extends undefined
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: BodyOf<Responses<O>[S]>; headers?: Record<string, string> };
}[SuccessCode<O>];

interface HandlerInput<O extends OperationId> {
  account: Account;
  body: RequestBody<O>;
  params: PathParams<O>;
  query: QueryParams<O>;
  req: Request;
  services: Services;
  /** With an Idempotency-Key: records the response in the transaction of the work (pass it to the service). */
  recorder?: ResponseRecorder;
}

export type Handler<O extends OperationId> = (input: HandlerInput<O>) => Promise<Reply<O>>;

/** A table of handlers by operationId; a missing entry means "not implemented yet". */
export type HandlerTable = { [O in OperationId]?: Handler<O> };

/**
 * Answers every operation of the spec from one middleware: the validator has already matched the request to its
 * operation (and parsed its path parameters), so no route table is walked a second time.
 */
export function mountOperations(app: Express, handlers: HandlerTable, services: Services): void {
  const byOperation = new Map<string, Handler<OperationId> | null>();
  for (const op of loadSpec().operations) {
    if (!op.public)
      byOperation.set(op.operationId, (handlers[op.operationId] as Handler<OperationId> | undefined) ?? null);
  }
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const matched = (
      req as Request & { openapi?: { schema?: { operationId?: string }; pathParams?: Record<string, string> } }
    ).openapi;
    const operationId = matched?.schema?.operationId;
    const handler = operationId === undefined ? undefined : byOperation.get(operationId);
    if (handler === undefined) return next();
    if (handler === null) return next(errors.notImplemented(operationId!));
    const input = {
      account: req.account!,
      body: req.body,
      params: (matched!.pathParams ?? {}) as any,
      query: req.query as any,
      req,
      services,
    };
    const reply = (await handler(input)) as { status: number; body?: unknown; headers?: Record<string, string> };
    res.status(reply.status);
    if (reply.headers) for (const name in reply.headers) res.setHeader(name, reply.headers[name]);
    if (reply.body === undefined) res.end();
    // Bytes go out as they are, under the Content-Type the handler set; the response validator checks JSON only.
    else if (Buffer.isBuffer(reply.body)) res.send(reply.body);
    else res.json(reply.body);
  });
}
