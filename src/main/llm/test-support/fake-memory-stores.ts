/**
 * The memory-store endpoints Claude Code 2.1.332 syncs a `CLAUDE_MEMORY_STORES` store with, faked
 * in memory for the interop tests: pass `routes` to startFakeAnthropic (fake-anthropic.ts), which
 * must also be the client's HTTPS proxy (its memory calls go to api.anthropic.com, whatever
 * `ANTHROPIC_BASE_URL` says). The shapes are the client's own (its `MemoryServiceBackend`, read
 * from the bundle); what it did with them is test/fixtures/claude-code-stores/.
 *
 * A store's `path` in `CLAUDE_MEMORY_STORES` is the URL prefix of its endpoints, `{path}/memories`:
 *   GET    {path}/memories?limit&path_prefix&depth&order_by&order&page → {data: [memory], next_page}
 *   GET    {path}/memories/{id}                                   → memory with `content`
 *   POST   {path}/memories {path, content, precondition?: {type: "not_exists"}} → memory (409 when it exists)
 *   POST   {path}/memories/{id} {content, precondition?: {type: "content_sha256", content_sha256}} → memory (409 on a stale sha)
 *   DELETE {path}/memories/{id}?expected_content_sha256           → 204 (409 on a stale sha)
 *   GET    {path}/memories/export                                 → not faked (404): the client falls back to the calls above
 * where a memory is `{type: "memory", id, path, content_sha256, content_size_bytes, updated_at}`
 * and a memory's `path` starts with `/`. A store not `provision`ed answers 404 everywhere.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FakeRequest, FakeRouteReply } from './fake-anthropic.js';

/** One memory as the fake holds it. */
export interface FakeStoredMemory {
  id: string;
  path: string;
  content: string;
  sha256: string;
  updatedAt: string;
}

/** The fake stores: what they hold, and the `routes` that serve them. */
export interface FakeMemoryStores {
  /** Create an empty store at `storePath` (as written in `CLAUDE_MEMORY_STORES`, e.g. `/team`). */
  provision(storePath: string): void;
  /** Put a memory into a store as another client would (`path` as the server holds it, `/x.md`). */
  put(storePath: string, path: string, content: string): FakeStoredMemory;
  /** A store's memories by path. */
  files(storePath: string): Record<string, string>;
  /** Answer the store requests among the fake's requests. */
  routes(request: FakeRequest): FakeRouteReply | undefined;
  /** A server-side refusal by path (the API's 400 `invalid_request_error` with this message). */
  refuse(match: (path: string, content: string) => string | null): void;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const invalid = (message: string): FakeRouteReply => ({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } });

export function createFakeMemoryStores(): FakeMemoryStores {
  const stores = new Map<string, Map<string, FakeStoredMemory>>();
  let refusal: (path: string, content: string) => string | null = () => null;

  const view = (m: FakeStoredMemory, withContent: boolean) => ({
    type: 'memory',
    id: m.id,
    path: m.path,
    content_sha256: m.sha256,
    content_size_bytes: Buffer.byteLength(m.content),
    updated_at: m.updatedAt,
    ...(withContent ? { content: m.content } : {}),
  });
  const write = (store: Map<string, FakeStoredMemory>, path: string, content: string, id = `mem_${randomBytes(8).toString('hex')}`) => {
    const memory = { id, path, content, sha256: sha256(content), updatedAt: new Date().toISOString() };
    store.set(id, memory);
    return memory;
  };
  const byPath = (store: Map<string, FakeStoredMemory>, path: string) => [...store.values()].find((m) => m.path === path);

  return {
    provision: (storePath) => void stores.set(storePath, stores.get(storePath) ?? new Map()),
    put(storePath, path, content) {
      const store = stores.get(storePath)!;
      const existing = byPath(store, path);
      return write(store, path, content, existing?.id);
    },
    files: (storePath) => Object.fromEntries([...(stores.get(storePath)?.values() ?? [])].map((m) => [m.path, m.content])),
    refuse: (match) => void (refusal = match),
    routes(request) {
      const url = new URL(request.path, 'http://fake');
      const match = /^(.*)\/memories(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match) return undefined;
      const [, storePath, rawId] = match as unknown as [string, string, string | undefined];
      const store = stores.get(storePath);
      if (!store) return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: `no memory store at ${storePath}` } } };
      const id = rawId === undefined ? undefined : decodeURIComponent(rawId);
      const body = (request.body ?? {}) as { path?: string; content?: string; precondition?: { type?: string; content_sha256?: string } };
      if (id === 'export') return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'export is not faked' } } };
      if (request.method === 'GET' && id === undefined) {
        const prefix = url.searchParams.get('path_prefix') ?? '/';
        const data = [...store.values()]
          .filter((m) => m.path.startsWith(prefix))
          .sort((a, b) => a.path.localeCompare(b.path))
          .map((m) => view(m, false));
        return { status: 200, body: { data, next_page: null } };
      }
      if (request.method === 'GET') {
        const memory = store.get(id!);
        return memory
          ? { status: 200, body: view(memory, true) }
          : { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'no such memory' } } };
      }
      if (request.method === 'POST') {
        const content = body.content ?? '';
        const memory = id === undefined ? undefined : store.get(id);
        const path = id === undefined ? (body.path ?? '') : (memory?.path ?? '');
        const refused = refusal(path, content);
        if (refused) return invalid(refused);
        if (id === undefined) {
          const existing = byPath(store, path);
          if (existing)
            return { status: 409, body: { type: 'error', error: { type: 'conflict_error', conflicting_path: path, conflicting_memory_id: existing.id } } };
          return { status: 200, body: view(write(store, path, content), false) };
        }
        if (!memory) return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'no such memory' } } };
        if (body.precondition?.type === 'content_sha256' && body.precondition.content_sha256 !== memory.sha256) {
          return { status: 409, body: { type: 'error', error: { type: 'conflict_error' } } };
        }
        return { status: 200, body: view(write(store, memory.path, content, memory.id), false) };
      }
      if (request.method === 'DELETE') {
        const memory = store.get(id ?? '');
        if (!memory) return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'no such memory' } } };
        const expected = url.searchParams.get('expected_content_sha256');
        if (expected !== null && expected !== memory.sha256) return { status: 409, body: { type: 'error', error: { type: 'conflict_error' } } };
        store.delete(memory.id);
        return { status: 204 };
      }
      return undefined;
    },
  };
}
