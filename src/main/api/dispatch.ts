/**
 * The one entry point every transport calls: look the call up in the contract, validate its
 * input (a bad payload becomes an `invalid-input` error, never a crash), run its handler,
 * validate the output, and turn any failure into an RpcError a person can read.
 */
import { issueSentence } from '../../shared/issue-sentence.js';
import * as z from 'zod';
import type { CallName, Contract, SubscriptionName } from '../../shared/contract/index.js';
import { RpcError, type QueryDef, type RpcErrorShape, type SubscriptionDef } from '../../shared/contract/define.js';
import { inputSentences, sentenceOf } from '../../shared/contract/input-sentences.js';
import type { AppEvent } from '../../shared/contract/events.js';
import type { AppContext } from '../app/index.js';
import { MemdirError, errorMapping } from '../../shared/errors.js';
import { failureSentence } from '../../shared/failure-words.js';

export type Handler<D extends QueryDef> = (input: z.output<D['input']>, ctx: AppContext) => Promise<z.input<D['output']>>;
export type Handlers = { [K in CallName]: Contract[K] extends QueryDef ? Handler<Contract[K]> : never };
export type Subscriber<D extends SubscriptionDef> = (input: z.output<D['input']>, ctx: AppContext, emit: (event: z.input<D['event']>) => void) => () => void;
export type Subscribers = { [K in SubscriptionName]: Contract[K] extends SubscriptionDef ? Subscriber<Contract[K]> : never };

/**
 * Calls whose handlers are proven to return exactly their contract's shape (output-shape.test.ts
 * compares, on a realistic home, the raw answer with the schema-checked one byte for byte). Outside
 * tests their answers are sent as produced: checking them cost 53 ms of the first list's ~860 ms
 * (issue 16, bench start) and changed nothing. Under vitest (which sets VITEST) every answer is
 * still checked, so a handler drifting from its schema fails the tests.
 */
export const OUTPUTS_PROVEN_EXACT: ReadonlySet<string> = new Set(['projects.list', 'projects.get']);
const checkEveryOutput = process.env.VITEST !== undefined;

export type CallResult = { ok: true; result: unknown } | { ok: false; error: RpcErrorShape };

function issuesOf(error: z.ZodError): string[] {
  return error.issues.map((i) => issueSentence(i));
}

/**
 * Map anything thrown by a service to the error shape the renderer understands: a MemdirError by
 * its code, as src/shared/errors.ts's one table says (the CLI reads the same table); anything else is
 * Memdir's bug, an `internal` error whose first line is shown and whose whole is logged.
 */
export function toRpcError(error: unknown): RpcErrorShape {
  if (error instanceof RpcError) return error.toJSON();
  if (error instanceof MemdirError) {
    // A conflict carries what is on disk now, so the editor can show both versions (MemoryError).
    const current = (error as { current?: unknown }).current;
    // A save refused for a secret carries each one, so the app can ask before saving it anyway (secrets/save-guard.ts).
    const secrets = (error as { secrets?: RpcErrorShape['secrets'] }).secrets;
    return {
      code: errorMapping(error.code).rpc,
      message: error.message,
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
      // The app offers the override the CLI names as a flag (src/cli/main.ts failureOutput).
      ...(error.overruledBy !== undefined ? { overruledBy: error.overruledBy } : {}),
      ...(typeof current === 'string' ? { current } : {}),
      ...(Array.isArray(secrets) ? { secrets } : {}),
    };
  }
  if (error instanceof z.ZodError) {
    const sentences = [...new Set(error.issues.map((i) => sentenceOf('', i)))];
    return { code: 'invalid-input', message: sentences.join(' '), issues: sentences };
  }
  return { code: 'internal', message: `Something went wrong: ${failureSentence(error)}` };
}

/** A refused input as the person reads it: one sentence per problem, no call name, no validator wording. */
function refused(name: string, schema: QueryDef['input'], input: unknown): RpcErrorShape {
  const sentences = inputSentences(name, schema, input);
  return { code: 'invalid-input', message: sentences.join(' '), issues: sentences };
}

export interface Dispatcher {
  call(name: unknown, input: unknown): Promise<CallResult>;
  subscribe(name: unknown, input: unknown, emit: (event: AppEvent) => void): { ok: true; unsubscribe: () => void } | { ok: false; error: RpcErrorShape };
}

/** How a dispatcher reports what the person is not shown. */
export interface DispatcherOptions {
  /** Receives every error that became `internal` (a bug: its stack belongs in a log, never on screen); default console.error. */
  logInternal?: (call: string, error: unknown) => void;
}

function logToConsole(call: string, error: unknown): void {
  console.error(`memdir: ${call} failed:`, error);
}

/**
 * A dispatcher over `handlers` and the declarations of their calls in `contract`: every call of
 * the contract (api/handlers.ts), or some of them (the dashboard's first screen, index.ts, whose
 * start does not load every domain's schemas); a call it has no handler for is answered as unknown.
 */
export function createDispatcher(
  ctx: AppContext,
  contract: Partial<Contract>,
  handlers: Partial<Handlers>,
  subscribers: Subscribers,
  options: DispatcherOptions = {},
): Dispatcher {
  const logInternal = options.logInternal ?? logToConsole;
  const defs = contract as Record<string, QueryDef | SubscriptionDef>;
  return {
    async call(name, input) {
      const def = typeof name === 'string' && Object.hasOwn(defs, name) ? defs[name] : undefined;
      // A name of the contract (checked above), so never one of Object's own.
      const handler = def ? (handlers as Record<string, Handler<QueryDef> | undefined>)[name as string] : undefined;
      if (!def || def.kind === 'subscription' || !handler)
        return { ok: false, error: { code: 'invalid-input', message: `There is no call named "${String(name)}".` } };
      const parsed = def.input.safeParse(input ?? {});
      if (!parsed.success) return { ok: false, error: refused(name as string, def.input, input ?? {}) };
      try {
        const result = await handler(parsed.data, ctx);
        if (!checkEveryOutput && OUTPUTS_PROVEN_EXACT.has(name as string)) return { ok: true, result };
        const checked = def.output.safeParse(result);
        if (!checked.success) {
          // A handler returning the wrong shape is our bug: say so rather than send it on.
          return { ok: false, error: { code: 'internal', message: `Memdir produced an invalid answer for ${name}.`, issues: issuesOf(checked.error) } };
        }
        return { ok: true, result: checked.data };
      } catch (error) {
        const shape = toRpcError(error);
        if (shape.code === 'internal') logInternal(name as string, error);
        return { ok: false, error: shape };
      }
    },
    subscribe(name, input, emit) {
      const def = typeof name === 'string' && Object.hasOwn(defs, name) ? defs[name] : undefined;
      if (!def || def.kind !== 'subscription')
        return { ok: false, error: { code: 'invalid-input', message: `There is no subscription named "${String(name)}".` } };
      const parsed = def.input.safeParse(input ?? {});
      if (!parsed.success) return { ok: false, error: refused(name as string, def.input, input ?? {}) };
      const subscriber = (subscribers as Record<string, Subscriber<SubscriptionDef>>)[name as string]!;
      return { ok: true, unsubscribe: subscriber(parsed.data, ctx, emit as (event: unknown) => void) };
    },
  };
}
