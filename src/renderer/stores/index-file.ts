/**
 * The MEMORY.md tab's file (R-INDEX): the index text as on disk, what the agent will be given at
 * the next session start (private index only), and saving an edit against the text it started
 * from. The edit itself is the view's; this holds what main says.
 */
import { create } from 'zustand';
import { RpcError } from '../../shared/contract/rpc-error.js';
import type { AgentIndexViewShape } from '../../shared/contract/memories.js';
import type { Scope } from '../../shared/memory-types.js';
import { call } from '../transport/transport.js';
import { messageOf, type SecretAsk, secretAskOf } from './errors.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

interface IndexFileState {
  dir: string | null;
  scope: Scope;
  /** The file's text, null until read. */
  text: string | null;
  /** Why Memdir will not edit this index (`text` is then what Claude Code reads), or null. */
  readOnly: string | null;
  /** No MEMORY.md: the file Claude Code would write at its next session start, which an edit starts from; else null. */
  built: string | null;
  agent: AgentIndexViewShape | null;
  error: string | null;
  /** A save refused because Claude Code (or another writer) changed the same lines on disk meanwhile: both versions, and the text the edit started from. */
  conflict: { theirs: string; mine: string; base: string } | null;
  /** A save refused because it would add a secret (Claude Code loads MEMORY.md into every session): asking before saving it anyway. */
  secrets: SecretAsk | null;
  /** Read the index (again, after a rescan); another project or index starts from nothing. */
  load: (dir: string, scope: Scope) => Promise<void>;
  /**
   * Save `draft` as the index (with secrets allowed on purpose: their fingerprints); true when saved.
   * A file changed on disk since `base` gets the edit merged onto it by main (the toast says so);
   * where both changed the same lines nothing is saved and `conflict` holds both versions.
   */
  save: (dir: string, scope: Scope, edit: { base: string; draft: string }, allowSecrets?: string[]) => Promise<boolean>;
}

// Each read is numbered: only the newest one's answers are shown.
let reads = 0;

export const useIndexFile = create<IndexFileState>()((set, get) => ({
  dir: null,
  scope: 'private',
  text: null,
  readOnly: null,
  built: null,
  agent: null,
  error: null,
  conflict: null,
  secrets: null,
  async load(dir, scope) {
    const read = ++reads;
    if (get().dir !== dir || get().scope !== scope)
      set({ dir, scope, text: null, readOnly: null, built: null, agent: null, error: null, conflict: null, secrets: null });
    const current = () => read === reads;
    await Promise.all([
      call('index.read', { dir, scope })
        .then((r) => current() && set({ text: r.text, readOnly: r.readOnly }))
        .catch((e: unknown) => current() && set({ error: messageOf(e) })),
      scope === 'private'
        ? call('index.loaded', { dir })
            // One prediction of the built index gives both what the agent gets and the file an edit starts from.
            .then((r) => current() && set({ agent: r, built: r.builtFile }))
            .catch((e: unknown) => current() && set({ error: messageOf(e) }))
        : set({ agent: null, built: null }),
    ]);
  },
  async save(dir, scope, edit, allowSecrets) {
    const shown = () => get().dir === dir && get().scope === scope;
    if (shown()) set({ secrets: null, error: null });
    try {
      const { rev, merged } = await call('index.save', {
        dir,
        scope,
        text: edit.draft,
        baseText: edit.base,
        ...(allowSecrets?.length ? { allowSecrets } : {}),
      });
      // An index save can drop every pointer: like every other destructive action, one Undo takes it back.
      offerUndo(dir, rev, merged ? 'Saved MEMORY.md, merged with the change made on disk meanwhile (its lines are kept).' : 'Saved MEMORY.md.');
      if (shown()) set({ conflict: null, ...(merged ? {} : { text: edit.draft }) });
      return true;
    } catch (e) {
      const ask = secretAskOf(e, allowSecrets);
      if (ask && shown()) {
        set({ secrets: ask });
        return false;
      }
      if (e instanceof RpcError && e.code === 'conflict' && e.current !== undefined && shown()) {
        set({ conflict: { theirs: e.current, mine: edit.draft, base: edit.base } });
        return false;
      }
      const message = messageOf(e);
      if (shown()) set({ error: message });
      else useToasts.getState().show('error', message);
      return false;
    }
  },
}));
