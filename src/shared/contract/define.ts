/**
 * How a call between the renderer and main is declared: once, here in shared, with zod schemas
 * for its input and output. Main validates every input against the schema before any service
 * runs; the renderer's client is typed from the same declaration. The transport (Electron IPC
 * or the headless host's HTTP) carries only `{ name, input }` and the result or an RpcError.
 */
import { z } from 'zod';

export interface QueryDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  kind: 'query' | 'mutation';
  doc: string;
  input: I;
  output: O;
}
export interface SubscriptionDef<I extends z.ZodType = z.ZodType, E extends z.ZodType = z.ZodType> {
  kind: 'subscription';
  doc: string;
  input: I;
  event: E;
}
export type Def = QueryDef | SubscriptionDef;

/** A read: no side effects, safe to retry. */
export function query<I extends z.ZodType, O extends z.ZodType>(doc: string, input: I, output: O): QueryDef<I, O> {
  return { kind: 'query', doc, input, output };
}
/** A change: writes go through the services' single safe path. */
export function mutation<I extends z.ZodType, O extends z.ZodType>(doc: string, input: I, output: O): QueryDef<I, O> {
  return { kind: 'mutation', doc, input, output };
}
/** A stream of events from main. */
export function subscription<I extends z.ZodType, E extends z.ZodType>(doc: string, input: I, event: E): SubscriptionDef<I, E> {
  return { kind: 'subscription', doc, input, event };
}

/** Error codes a call can fail with; each carries a message a person can act on. */
export const RPC_ERROR_CODES = [
  'invalid-input',
  'not-found',
  'exists',
  'conflict',
  'invalid-name',
  'scope-refused',
  'unsafe-path',
  'busy',
  'unavailable',
  'unauthorized',
  'internal',
] as const;
export type RpcErrorCode = (typeof RPC_ERROR_CODES)[number];

export const rpcErrorSchema = z.object({
  code: z.enum(RPC_ERROR_CODES),
  message: z.string(),
  /** For `conflict`: what is on disk now, so both versions can be shown. */
  current: z.string().optional(),
  /** For `invalid-input`: which fields, in words. */
  issues: z.array(z.string()).optional(),
  /** What the person can do about it, one sentence (a MemdirError's hint). */
  hint: z.string().optional(),
});
export type RpcErrorShape = z.infer<typeof rpcErrorSchema>;

/** The error value every transport delivers to the renderer. */
export class RpcError extends Error {
  readonly code: RpcErrorCode;
  readonly current?: string;
  readonly issues?: string[];
  readonly hint?: string;
  constructor(shape: RpcErrorShape) {
    super(shape.message);
    this.name = 'RpcError';
    this.code = shape.code;
    if (shape.current !== undefined) this.current = shape.current;
    if (shape.issues !== undefined) this.issues = shape.issues;
    if (shape.hint !== undefined) this.hint = shape.hint;
  }
  toJSON(): RpcErrorShape {
    return {
      code: this.code,
      message: this.message,
      ...(this.current !== undefined ? { current: this.current } : {}),
      ...(this.issues ? { issues: this.issues } : {}),
      ...(this.hint !== undefined ? { hint: this.hint } : {}),
    };
  }
}

export type InputOf<D extends Def> = z.input<D['input']>;
export type OutputOf<D extends QueryDef> = z.output<D['output']>;
export type EventOf<D extends SubscriptionDef> = z.output<D['event']>;
