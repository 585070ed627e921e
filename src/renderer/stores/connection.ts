/**
 * Whether the page can reach Memdir, as its event stream says (live-stream.ts): what the
 * connection banner shows. A drop is shown only once it has lasted `DOWN_QUIET_MS` (a host
 * restarting, a blip, says nothing); a refusal at once, since it does not pass.
 */
import { create } from 'zustand';
import type { StreamState } from '../transport/transport.js';

/** `down`: Memdir has not answered for a while, the stream is retrying; `refused`: this page's token is from an earlier run. */
export type ConnectionStatus = 'live' | 'down' | 'refused';

/** How long the stream must have been down before the page says so. */
export const DOWN_QUIET_MS = 2_000;

export const useConnection = create<{ status: ConnectionStatus }>()(() => ({ status: 'live' }));

let quiet: ReturnType<typeof setTimeout> | null = null;

/** The event stream's state changed. */
export function noteStreamState(state: StreamState): void {
  if (state === 'down') {
    // Each retry says down again: the wait counts from the first.
    if (useConnection.getState().status === 'live' && quiet === null) {
      quiet = setTimeout(() => {
        quiet = null;
        useConnection.setState({ status: 'down' });
      }, DOWN_QUIET_MS);
    }
    return;
  }
  if (quiet !== null) clearTimeout(quiet);
  quiet = null;
  useConnection.setState({ status: state });
}
