/**
 * The renderer's only way to main: `call` and `subscribe`, typed from the shared contract.
 * Which transport carries them (Electron IPC through the preload bridge, or the headless
 * host's HTTP) is decided once at start-up; stores never know which.
 */
import type { CallName, Contract, SubscriptionName } from '../../shared/contract/index.js';
import type { EventOf, InputOf, OutputOf, QueryDef, SubscriptionDef } from '../../shared/contract/define.js';
import { RpcError, type RpcErrorShape } from '../../shared/contract/rpc-error.js';

export type WireResult = { ok: true; result: unknown } | { ok: false; error: RpcErrorShape };

/**
 * Where a subscription stands: `live` once main has subscribed it (events published from then on
 * arrive), `down` when it could not be opened or dropped (events published meanwhile are lost).
 * A stream that comes back says `live` again. `refused` when main will never answer this page (the
 * headless host restarted with a new token: this page's is from an earlier run): the transport
 * stops asking, and every call is refused too.
 */
export type StreamState = 'live' | 'down' | 'refused';

export interface Transport {
  readonly kind: 'electron' | 'host';
  call(name: string, input: unknown): Promise<WireResult>;
  subscribe(name: string, input: unknown, onEvent: (event: unknown) => void, onState?: (state: StreamState) => void): () => void;
}

/** What the preload exposes on `window.memdirBridge` inside Electron. */
export interface Bridge {
  call(name: string, input: unknown): Promise<WireResult>;
  subscribe(name: string, input: unknown, onEvent: (event: unknown) => void, onState?: (state: StreamState) => void): () => void;
}

let current: Transport | null = null;

export function setTransport(transport: Transport): void {
  current = transport;
}

export function transportKind(): Transport['kind'] | null {
  return current?.kind ?? null;
}

function transport(): Transport {
  if (!current) throw new Error('No transport: the app was started without a connection to Memdir.');
  return current;
}

/** Call main; resolves with the output or rejects with an RpcError carrying a readable message. */
export async function call<N extends CallName>(
  name: N,
  input: Contract[N] extends QueryDef ? InputOf<Contract[N]> : never,
): Promise<Contract[N] extends QueryDef ? OutputOf<Contract[N]> : never> {
  let result: WireResult;
  try {
    result = await transport().call(name, input);
  } catch {
    // The transport's own words ("Failed to fetch", "NetworkError when attempting…") say nothing to a person.
    throw new RpcError({ code: 'unavailable', message: 'Memdir did not answer: it may have stopped. Is it still running?' });
  }
  if (!result.ok) throw new RpcError(result.error);
  return result.result as never;
}

/** Follow a subscription until the returned function is called; `onState` hears when it is live, and when it dropped. */
export function subscribe<N extends SubscriptionName>(
  name: N,
  input: Contract[N] extends SubscriptionDef ? InputOf<Contract[N]> : never,
  onEvent: (event: Contract[N] extends SubscriptionDef ? EventOf<Contract[N]> : never) => void,
  onState?: (state: StreamState) => void,
): () => void {
  return transport().subscribe(name, input, onEvent as (event: unknown) => void, onState);
}
