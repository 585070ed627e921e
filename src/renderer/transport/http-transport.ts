/**
 * The headless host transport: POST /api/call with the per-run token, and a server-sent
 * event stream read with fetch (so the token travels in a header, not the URL).
 */
import type { Transport, WireResult } from './transport.js';

const TOKEN_KEY = 'memdir.token';

/** Take the token from the URL once, keep it for this tab, and drop it from the address bar. */
export function takeToken(location: Location, storage: Storage, history: History): string | null {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get('token');
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
    return fromUrl;
  }
  return storage.getItem(TOKEN_KEY);
}

export function createHttpTransport(token: string): Transport {
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
  return {
    kind: 'host',
    async call(name, input) {
      const res = await fetch('/api/call', { method: 'POST', headers, body: JSON.stringify({ name, input }) });
      const body = (await res.json().catch(() => null)) as WireResult | null;
      if (!body) return { ok: false, error: { code: 'unavailable', message: `Memdir answered with HTTP ${res.status}.` } };
      return body;
    },
    subscribe(_name, _input, onEvent, onState) {
      let stopped = false;
      let controller = new AbortController();
      const run = async (): Promise<void> => {
        while (!stopped) {
          try {
            const res = await fetch('/api/events', { headers: { Authorization: headers.Authorization }, signal: controller.signal });
            if (res.status === 401) {
              // A token from an earlier run of the host: asking again cannot help, only the link it printed can.
              void res.body?.cancel();
              onState?.('refused');
              return;
            }
            if (!res.ok || !res.body) {
              void res.body?.cancel();
              throw new Error(`no stream (HTTP ${res.status})`);
            }
            // The host answers only once it has subscribed (host-server.ts): from here on nothing it publishes is lost.
            onState?.('live');
            const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = '';
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += value;
              let end: number;
              while ((end = buffer.indexOf('\n\n')) !== -1) {
                const frame = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                for (const line of frame.split('\n')) if (line.startsWith('data: ')) onEvent(JSON.parse(line.slice(6)));
              }
            }
          } catch {
            if (stopped) return;
          }
          if (stopped) return;
          // The host went away or restarted: what it published meanwhile reached no one. Try again shortly.
          onState?.('down');
          await new Promise((resolve) => setTimeout(resolve, 1000));
          controller = new AbortController();
        }
      };
      void run();
      return () => {
        stopped = true;
        controller.abort();
      };
    },
  };
}
