/**
 * How a call between the renderer and main is declared: once, here in shared, with zod schemas
 * for its input and output. Main validates every input against the schema before any service
 * runs; the renderer's client is typed from the same declaration. The transport (Electron IPC
 * or the headless host's HTTP) carries only `{ name, input }` and the result or an RpcError.
 */
import type * as z from 'zod';

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

export { RPC_ERROR_CODES, RpcError, type RpcErrorCode, type RpcErrorShape } from './rpc-error.js';

export type InputOf<D extends Def> = z.input<D['input']>;
export type OutputOf<D extends QueryDef> = z.output<D['output']>;
export type EventOf<D extends SubscriptionDef> = z.output<D['event']>;
