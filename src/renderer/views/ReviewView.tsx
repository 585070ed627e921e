/**
 * The review queue (SPEC §4): what extraction proposed, and the "remember this" statements found
 * offline, each with what the user said, the memory it would become and any warning — accept,
 * edit then accept, or reject. Below, the extraction log: every span of turns and what became of
 * it (applied, queued, skipped and why), and every decision.
 */
import { useEffect, useState } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import type { ExtractionLogEntry, Proposal, TurnOutcome } from '../../shared/contract/extract.js';
import { unionWithOverlaps } from '../../shared/line-union.js';
import { MEMORY_TYPES } from '../../shared/memory-types.js';
import { operationLabel } from '../../shared/operation-label.js';
import { Breakable } from '../components/Breakable.js';
import { type CardColumn, CardRow, CardTable } from '../components/CardTable.js';
import { when } from '../components/format.js';
import { MergeView } from '../components/MergeView.js';
import { editOf, useExtract } from '../stores/extract.js';
import { useNav } from '../stores/nav.js';
import { projectName, useProjects } from '../stores/projects.js';

const SKIP_LABELS: Record<string, string> = {
  'memory-written-by-agent': 'the agent wrote the memory itself',
  'auto-memory-off': 'auto memory is off',
  'extraction-disabled': 'extraction is off',
  'internal-session': "Memdir's own session",
  'no-prompt': 'no prompt',
  'before-watching': 'before Memdir watched',
  'already-extracted': 'already extracted',
  'model-failed': 'model failed, will retry',
};

function EditForm({ proposal }: { proposal: Proposal }) {
  const editing = useExtract((s) => s.editing);
  const { changeDraft, cancelEdit, accept } = useExtract.getState();
  if (!editing || editing.id !== proposal.id) return null;
  const draft = editing.draft;
  return (
    <form
      className="form-grid proposal-edit"
      aria-label="Edit the proposal"
      onSubmit={(e) => {
        e.preventDefault();
        void accept(proposal.id, draft);
      }}
    >
      <label>
        Name
        <input value={draft.name} onChange={(e) => changeDraft({ name: e.target.value })} />
      </label>
      <label>
        File
        <input value={draft.file} onChange={(e) => changeDraft({ file: e.target.value })} />
      </label>
      <label>
        Type
        <select
          value={draft.type}
          onChange={(e) => changeDraft({ type: e.target.value as Proposal['operation']['type'], ...(e.target.value === 'user' ? { scope: 'private' } : {}) })}
        >
          {MEMORY_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label>
        Scope
        <select value={draft.scope} onChange={(e) => changeDraft({ scope: e.target.value as 'private' | 'team' })}>
          <option value="private">private</option>
          <option value="team" disabled={draft.type === 'user'}>
            team
          </option>
        </select>
      </label>
      <label className="wide">
        Description
        <input value={draft.description} onChange={(e) => changeDraft({ description: e.target.value })} />
      </label>
      <label className="wide">
        Body
        <textarea rows={8} value={draft.body} onChange={(e) => changeDraft({ body: e.target.value })} />
      </label>
      <div className="actions wide">
        <button type="submit" className="primary">
          Accept edited
        </button>
        <button type="button" onClick={cancelEdit}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * An update whose memory changed since it was proposed, in a way that overlaps it: the memory as
 * it is now beside the proposal. Keep the file (the proposal is rejected), take the proposal (the
 * file as it is now stays in history; Undo on the toast), or save a merge of both.
 */
function Comparison({ proposal }: { proposal: Proposal }) {
  const comparing = useExtract((s) => (s.comparing?.id === proposal.id ? s.comparing : null));
  const { accept, reject, closeComparison } = useExtract.getState();
  const [initial] = useState(() => (comparing ? unionWithOverlaps(comparing.body, proposal.operation.body) : null));
  if (!comparing || !initial) return null;
  const op = proposal.operation;
  const file = `${op.scope === 'team' ? 'team/' : ''}${op.file}`;
  return (
    <MergeView
      label={`Compare ${file} with the proposal`}
      heading={file}
      subtitle="changed since this update was proposed"
      theirs={{ title: 'The memory as it is now', text: comparing.body }}
      mine={{ title: 'The proposal', text: op.body }}
      initial={initial.text}
      overlaps={initial.overlaps}
      note="Starts as every line of both, in order. Edit it, then save: the memory as it is now stays in history."
      busy={false}
      onClose={closeComparison}
      actions={[
        {
          label: 'Keep the memory as it is',
          title: 'The proposal is rejected',
          run: () => void reject(proposal.id, 'kept the memory as it was changed since'),
        },
        {
          label: 'Take the proposal',
          title: 'Write the proposal over it; the memory as it is now stays in history',
          run: () => void accept(proposal.id, undefined, comparing.text),
        },
        { label: 'Save merge', primary: true, run: (body) => void accept(proposal.id, { ...editOf(proposal), body }, comparing.text) },
      ]}
    />
  );
}

function ProposalCard({ proposal }: { proposal: Proposal }) {
  const editing = useExtract((s) => s.editing?.id === proposal.id);
  const comparing = useExtract((s) => s.comparing?.id === proposal.id);
  const { accept, reject, startEdit } = useExtract.getState();
  const summary = useProjects((s) => s.projects.find((p) => p.dir === proposal.project));
  const op = proposal.operation;
  const suggestion = proposal.kind === 'suggestion';
  return (
    <article className="proposal" aria-label={`Proposal ${op.name}`}>
      <header>
        <span className={`badge ${suggestion ? 'hint' : 'ok'}`}>{suggestion ? 'suggestion (offline)' : 'proposal'}</span>
        <span className={`chip type-${op.type}`}>{op.type}</span>
        <span className={`chip ${op.scope === 'team' ? 'team' : ''}`}>{op.scope}</span>
        <code>
          {op.action} {op.scope === 'team' ? 'team/' : ''}
          {op.file}
        </code>
        <span className="muted small"> · {summary ? projectName(summary) : proposal.project}</span>
      </header>
      <h2>{op.name}</h2>
      <p className="muted">{op.description}</p>
      {!editing && (
        <div className="markdown proposal-body">
          <Markdown remarkPlugins={[remarkGfm]}>{op.body}</Markdown>
        </div>
      )}
      {proposal.evidence && (
        <blockquote className="evidence" title="What the user said">
          {proposal.evidence}
        </blockquote>
      )}
      {op.reason && <p className="small muted">Why: {op.reason}</p>}
      {proposal.warnings.map((w) => (
        <div key={w} className="banner warning" role="note">
          {w}
        </div>
      ))}
      {comparing ? (
        <Comparison proposal={proposal} />
      ) : editing ? (
        <EditForm proposal={proposal} />
      ) : (
        <div className="actions">
          <button className="primary" onClick={() => void accept(proposal.id)}>
            {suggestion ? 'Make it a memory' : 'Accept'}
          </button>
          <button onClick={() => startEdit(proposal)}>Edit</button>
          <button onClick={() => void reject(proposal.id)}>{suggestion ? 'Dismiss' : 'Reject'}</button>
        </div>
      )}
    </article>
  );
}

/** One log line in words. */
export function describeLogEntry(entry: ExtractionLogEntry): string {
  if (entry.kind === 'decision') return `${entry.decision} ${entry.file}${entry.reason ? ` (${entry.reason})` : ''}`;
  const o = entry.outcome;
  const span = `${o.turns} turn${o.turns === 1 ? '' : 's'}`;
  if (o.skipped) return `${span} skipped: ${SKIP_LABELS[o.reason ?? ''] ?? o.reason}`;
  const counts = new Map<string, number>();
  for (const op of o.operations) counts.set(op.disposition, (counts.get(op.disposition) ?? 0) + 1);
  const parts = [...counts].map(([d, n]) => `${n} ${d}`);
  return `${span}: ${parts.length ? parts.join(', ') : 'nothing to remember'}${o.method === 'offline' ? ' (offline)' : ''}`;
}

/** A log line's detail: the outcome's message, and why each operation was not written (refused, or queued for a look). */
export function logDetail(outcome: TurnOutcome): string {
  const why = outcome.operations.flatMap((o) => (o.disposition !== 'applied' && o.reason ? [`${operationLabel(o.operation)}: ${o.reason}`] : []));
  return [outcome.message ?? '', ...why].filter(Boolean).join(' ');
}

const LOG_COLUMNS: CardColumn[] = [
  { label: 'When', bare: true },
  { label: 'Project' },
  { label: 'What happened', wide: true },
  { label: 'Detail', wide: true },
];

function ExtractionLog() {
  const log = useExtract((s) => s.log);
  const [open, setOpen] = useState(false);
  return (
    <section aria-label="Extraction log" className="extraction-log">
      <h2>
        <button className="link" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? '▾' : '▸'} Extraction log
        </button>
        <span className="muted small"> {log.length} recent entries</span>
      </h2>
      {open &&
        (log.length === 0 ? (
          <p className="muted">No extraction yet.</p>
        ) : (
          <CardTable label="Extraction log" columns={LOG_COLUMNS}>
            {log.map((entry) => (
              <CardRow key={entry.id}>
                <td className="small">{when(entry.time)}</td>
                {/* Folder names, file names and URLs wrap at their separators, not letter by letter (s44, 320 px). */}
                <td className="small">
                  <Breakable text={entry.project} />
                </td>
                <td>
                  <Breakable text={describeLogEntry(entry)} />
                </td>
                <td className="small muted">{entry.kind === 'turns' ? <Breakable text={logDetail(entry.outcome)} /> : ''}</td>
              </CardRow>
            ))}
          </CardTable>
        ))}
    </section>
  );
}

export function ReviewView({ dir }: { dir?: string }) {
  const { proposals, pending, error, loading } = useExtract();
  const projects = useProjects((s) => s.projects);
  const go = useNav((s) => s.go);
  useEffect(() => {
    void useExtract.getState().load(dir ?? null);
    void useExtract.getState().loadLog();
  }, [dir]);
  return (
    <section className="review">
      <header className="view-head">
        <h1>Review queue</h1>
        <select aria-label="Project" value={dir ?? ''} onChange={(e) => go(e.target.value ? { view: 'review', dir: e.target.value } : { view: 'review' })}>
          <option value="">All projects</option>
          {projects.map((p) => (
            <option key={p.dir} value={p.dir}>
              {projectName(p)}
              {pending[p.dir] ? ` (${pending[p.dir]})` : ''}
            </option>
          ))}
        </select>
        {dir && <button onClick={() => void useExtract.getState().extractNow(dir)}>Extract now</button>}
      </header>
      {error && <div className="banner error">{error}</div>}
      {proposals.length === 0 ? (
        <p className="muted">
          {loading
            ? 'Loading…'
            : 'Nothing waiting for review. After each turn, extraction proposes what is worth remembering; in review mode (Settings → Extraction) the proposals wait here. Offline, sentences like "remember…" or "以后…" are offered here as suggestions.'}
        </p>
      ) : (
        <div className="proposal-list">
          {proposals.map((p) => (
            <ProposalCard key={p.id} proposal={p} />
          ))}
        </div>
      )}
      <ExtractionLog />
    </section>
  );
}
