/** The review queue (proposals and offline suggestions), the extraction log and "Extract now". */
import { create } from 'zustand';
import type { ExtractionLogEntry, Proposal, ProposalEdit } from '../../shared/contract/extract.js';
import type { Job } from '../../shared/contract/events.js';
import { RpcError } from '../../shared/contract/rpc-error.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

/** The queue without the proposal that was just decided, and the project's count one lower. */
export function withoutProposal(
  state: { proposals: Proposal[]; pending: Record<string, number> },
  decided: Proposal,
): { proposals: Proposal[]; pending: Record<string, number> } {
  const proposals = state.proposals.filter((p) => p.id !== decided.id);
  const pending = { ...state.pending };
  if (state.proposals.some((p) => p.id === decided.id && p.status === 'pending')) {
    const left = (pending[decided.project] ?? 1) - 1;
    if (left > 0) pending[decided.project] = left;
    else delete pending[decided.project];
  }
  return { proposals, pending };
}

/** Pending proposals across every project. */
export function totalPending(pending: Record<string, number>): number {
  return Object.values(pending).reduce((n, c) => n + c, 0);
}

/** The edit form's starting point: the proposal as it stands. */
export function editOf(proposal: Proposal): ProposalEdit {
  const { file, scope, type, name, description, body } = proposal.operation;
  return { file, scope, type, name, description, body };
}

interface ExtractState {
  /** The project the queue is filtered to, or null for all. */
  dir: string | null;
  proposals: Proposal[];
  pending: Record<string, number>;
  log: ExtractionLogEntry[];
  loading: boolean;
  error: string | null;
  /** The proposal being edited, and the draft. */
  editing: { id: string; draft: ProposalEdit } | null;
  /**
   * An update whose memory changed since it was proposed, in a way that overlaps it: the file as
   * it is now (its whole text, sent back as the base of the user's choice, and its body), shown
   * beside the proposal until the user chooses.
   */
  comparing: { id: string; text: string; body: string } | null;
  load: (dir?: string | null) => Promise<void>;
  loadLog: () => Promise<void>;
  startEdit: (proposal: Proposal) => void;
  changeDraft: (patch: Partial<ProposalEdit>) => void;
  cancelEdit: () => void;
  /** Accept; `baseText`: the file as the user saw it beside the proposal (after a conflict), so it is written over as chosen. */
  accept: (id: string, edit?: ProposalEdit, baseText?: string) => Promise<boolean>;
  /** Close the comparison: the proposal stays in the queue. */
  closeComparison: () => void;
  reject: (id: string, reason?: string) => Promise<void>;
  extractNow: (dir: string) => Promise<void>;
  /** A job changed (`null`: any may have, its events were lost): a finished extraction may have queued proposals. */
  onJob: (job: Job | null) => void;
}

export const useExtract = create<ExtractState>()((set, get) => ({
  dir: null,
  proposals: [],
  pending: {},
  log: [],
  loading: false,
  error: null,
  editing: null,
  comparing: null,
  async load(dir) {
    const next = dir === undefined ? get().dir : dir;
    set({ loading: true, dir: next });
    try {
      const queue = await call('extract.queue', { ...(next ? { dir: next } : {}), status: 'pending' });
      set({ proposals: queue.proposals, pending: queue.pending, error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ loading: false });
    }
  },
  async loadLog() {
    try {
      const dir = get().dir;
      set({ log: (await call('extract.log', { ...(dir ? { dir } : {}), limit: 50 })).entries });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  startEdit(proposal) {
    set({ editing: { id: proposal.id, draft: editOf(proposal) } });
  },
  changeDraft(patch) {
    const editing = get().editing;
    if (editing) set({ editing: { ...editing, draft: { ...editing.draft, ...patch } } });
  },
  cancelEdit() {
    set({ editing: null });
  },
  async accept(id, edit, baseText) {
    try {
      const { proposal } = await call('extract.accept', { id, ...(edit ? { edit } : {}), ...(baseText !== undefined ? { baseText } : {}) });
      set({ ...withoutProposal(get(), proposal), editing: null, comparing: null, error: null });
      offerUndo(proposal.project, proposal.result?.rev ?? null, `Saved ${proposal.result?.file ?? proposal.operation.file}.`);
      void get().loadLog();
      return true;
    } catch (error) {
      const queued = get().proposals.find((p) => p.id === id);
      if (error instanceof RpcError && error.code === 'conflict' && error.current !== undefined && queued) {
        // Read through the one parser of memory files, for the body to set beside the proposal's.
        const { scope, file } = queued.operation;
        const doc = await call('memories.read', { dir: queued.project, scope, file }).catch(() => null);
        set({ comparing: { id, text: doc?.text ?? error.current, body: doc?.body ?? error.current }, editing: null });
      }
      set({ error: messageOf(error) });
      return false;
    }
  },
  closeComparison() {
    set({ comparing: null, error: null });
  },
  async reject(id, reason) {
    try {
      const { proposal } = await call('extract.reject', { id, ...(reason ? { reason } : {}) });
      set({ ...withoutProposal(get(), proposal), editing: get().editing?.id === id ? null : get().editing, error: null });
      void get().loadLog();
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async extractNow(dir) {
    try {
      const result = await call('extract.run', { dir });
      useToasts
        .getState()
        .show(result.started ? 'info' : 'error', result.started ? "Extracting from this project's transcripts…" : (result.reason ?? 'Not started.'));
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    }
  },
  onJob(job) {
    if (job === null || (job.kind === 'extract' && job.state !== 'running' && job.state !== 'queued')) {
      void get().load();
      void get().loadLog();
    }
  },
}));
