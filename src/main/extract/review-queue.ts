/**
 * The review queue (SPEC §4: "queue proposals for review in the app"): accept a proposal as it
 * is, accept it edited, or reject it. Accepting validates the operation again against the memory
 * directory as it is now (it may have changed since the proposal was made; the user may have
 * edited it into something else) and writes through the same path as apply mode. Every decision
 * is appended to the extraction log.
 */
import type { ExtractOperation, Proposal, ProposalEdit } from '../../shared/contract/extract.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { inStoreMode, MemoryError, type MemoryStoresSetting, scanMemoryDir, teamDirOf } from '../memdir/index.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { applyOperations, describeOperation, isAlreadyCreated } from './apply-operations.js';
import { ExtractionStore, newId } from './extraction-store.js';
import { type ValidationTarget, validateOperation } from './validate-operation.js';

async function currentTarget(memoryDir: string, storeMode: boolean): Promise<ValidationTarget> {
  const own = scanMemoryDir(memoryDir, { scope: 'private' });
  const team = scanMemoryDir(teamDirOf(memoryDir), { scope: 'team' });
  const read = (file: string) => fs.readFile(file, 'utf8').catch(() => '');
  return {
    privateFiles: new Set(own.memories.map((m) => m.file)),
    teamFiles: team.exists ? new Set(team.memories.map((m) => m.file)) : null,
    indexText: storeMode ? null : await read(path.join(memoryDir, INDEX_FILE)),
  };
}

async function pending(store: ExtractionStore, id: string): Promise<Proposal> {
  const proposal = await store.getProposal(id);
  if (!proposal) throw new MemoryError('not-found', `There is no proposal "${id}" in the review queue.`);
  if (proposal.status !== 'pending') throw new MemoryError('conflict', `This proposal was already ${proposal.status}.`);
  return proposal;
}

/** Whether an edit changes anything the proposal said. */
function differs(op: ExtractOperation, edit: ProposalEdit): boolean {
  return (
    op.file !== edit.file ||
    op.scope !== edit.scope ||
    op.type !== edit.type ||
    op.name !== edit.name ||
    op.description !== edit.description ||
    op.body !== edit.body
  );
}

/**
 * Accept a pending proposal, as it is or edited. Throws MemoryError (`not-found`, `conflict`,
 * `scope-refused`, `invalid-input`) with a sentence the app shows. An update is merged onto the
 * file from the text it was proposed from, or from `opts.baseText` (the file as the user saw it
 * when choosing); a `conflict` for an overlap carries the file as it is now. `opts.memoryStores`:
 * the project's `CLAUDE_MEMORY_STORES` as its sessions see it now (settings.ts): in memory-store
 * mode the memory is checked and written as extraction does then (no index, no pointer).
 */
export async function acceptProposal(
  dataDir: string,
  id: string,
  edit?: ProposalEdit,
  opts: { baseText?: string; memoryStores?: MemoryStoresSetting } = {},
  store = new ExtractionStore(dataDir),
): Promise<Proposal> {
  const proposal = await pending(store, id);
  const storeMode = inStoreMode(opts.memoryStores ?? null);
  const edited = edit !== undefined && differs(proposal.operation, edit);
  const raw: ExtractOperation = edit ? { ...proposal.operation, ...edit } : proposal.operation;
  let operation = raw;
  // A crash between writing and recording leaves the memory written and the proposal pending.
  if (!(await isAlreadyCreated(proposal.memoryDir, raw, proposal.sessionId))) {
    const checked = await validateOperation(raw, await currentTarget(proposal.memoryDir, storeMode));
    if (!checked.ok) throw new MemoryError(/user.*team/i.test(checked.reason) ? 'scope-refused' : 'invalid-input', checked.reason);
    operation = checked.operation;
  }
  const summary = (written: readonly ExtractOperation[]) =>
    `Accept ${proposal.kind === 'suggestion' ? 'suggestion' : 'proposal'}${written.length > 0 ? `: ${written.map(describeOperation).join(', ')}` : ''}`;
  // A queue written before the base was kept has none: never written over a file blindly.
  const baseOf = () => opts.baseText ?? proposal.baseText ?? null;
  const { results, rev } = await applyOperations(proposal.memoryDir, [operation], { dataDir, sessionId: proposal.sessionId, summary, storeMode, baseOf });
  const result = results[0]!;
  if (!result.ok) throw new MemoryError('conflict', result.reason ?? 'The memory could not be written.', result.current);
  const decided: Proposal = {
    ...proposal,
    operation,
    status: 'accepted',
    decidedAt: new Date().toISOString(),
    edited,
    result: { file: operation.scope === 'team' ? `${TEAM_DIR}/${operation.file}` : operation.file, rev },
  };
  await store.saveProposal(decided);
  await store.appendLog([
    {
      kind: 'decision',
      id: newId('dec'),
      time: decided.decidedAt!,
      project: proposal.project,
      proposalId: id,
      decision: edited ? 'edited' : 'accepted',
      file: decided.result!.file,
      rev,
      reason: null,
    },
  ]);
  return decided;
}

/** Reject a pending proposal; nothing is written to the memory directory. */
export async function rejectProposal(dataDir: string, id: string, reason?: string, store = new ExtractionStore(dataDir)): Promise<Proposal> {
  const proposal = await pending(store, id);
  const decided: Proposal = { ...proposal, status: 'rejected', decidedAt: new Date().toISOString(), rejectReason: reason?.trim() || null };
  await store.saveProposal(decided);
  const file = proposal.operation.scope === 'team' ? `${TEAM_DIR}/${proposal.operation.file}` : proposal.operation.file;
  await store.appendLog([
    {
      kind: 'decision',
      id: newId('dec'),
      time: decided.decidedAt!,
      project: proposal.project,
      proposalId: id,
      decision: 'rejected',
      file,
      rev: null,
      reason: decided.rejectReason,
    },
  ]);
  return decided;
}
