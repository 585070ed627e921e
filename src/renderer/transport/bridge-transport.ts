/** The Electron transport: the preload's bridge over IPC. */
import type { Bridge, Transport } from './transport.js';

export function createBridgeTransport(bridge: Bridge): Transport {
  return {
    kind: 'electron',
    call: (name, input) => bridge.call(name, input),
    subscribe: (name, input, onEvent, onState) => bridge.subscribe(name, input, onEvent, onState),
  };
}
