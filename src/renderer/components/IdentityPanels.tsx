/**
 * The dashboard's "memory that follows the project" (issue 18): orphaned memory with where its
 * project may have gone (and why), groups of one project in several places, the preview of a
 * relink or merge before it is done, its result with one Undo, and the conflicts it kept, each
 * resolved in the merge editor.
 */
import { Suspense, lazy, useEffect, useState } from 'react';
import type { MergePlan, MergeRecord, Orphan } from '../../shared/contract/identity.js';
import { describeEvidence } from '../../shared/project-identity.js';
import { plural } from '../../shared/size-text.js';
import { useIdentity } from '../stores/identity.js';
import { ago } from './format.js';

// The merge editor (CodeMirror) is loaded when a conflict opens: the dashboard shows these panels
// on its first paint, which does not need it (issue 16).
const MergeView = lazy(() => import('./MergeView.js').then((m) => ({ default: m.MergeView })));

const ACTION_WORDS = { add: 'added', same: 'identical, kept once', conflict: 'conflict: kept for you', index: 'index lines added' } as const;

function Preview({ plan }: { plan: MergePlan }) {
  const { confirm, cancel } = useIdentity.getState();
  const busy = useIdentity((s) => s.busy);
  const [force, setForce] = useState(false);
  const verb = plan.kind === 'relink' ? 'Relink' : 'Merge';
  return (
    <section className="panel" aria-label={`${verb} preview`}>
      <h2>
        {verb} {plan.source.label} → {plan.target.path ?? plan.target.dir}
      </h2>
      <p className="muted small">
        Into {plan.target.memoryDir} · evidence: {describeEvidence(plan.evidence)}
      </p>
      <table className="grid" aria-label="What will happen">
        <tbody>
          {plan.files.map((f) => (
            <tr key={`${f.area}:${f.file}:${f.action}`}>
              <td>{f.area}</td>
              <td>{f.file}</td>
              <td className={f.action === 'conflict' ? 'warning' : undefined}>{ACTION_WORDS[f.action]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {plan.warnings.map((w) => (
        <p key={w} className="banner warning">
          {w}
        </p>
      ))}
      {plan.blockers.map((b) => (
        <p key={b} className="banner error">
          {b}
        </p>
      ))}
      <div className="actions">
        {plan.blockers.length > 0 && (
          <label>
            <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> I am sure: {verb.toLowerCase()} anyway
          </label>
        )}
        <button onClick={cancel}>Cancel</button>
        <button className="primary" disabled={busy || (plan.blockers.length > 0 && !force)} onClick={() => void confirm(force)}>
          {verb}
        </button>
      </div>
    </section>
  );
}

function Result() {
  const result = useIdentity((s) => s.result);
  const undoNotes = useIdentity((s) => s.undoNotes);
  const recovered = useIdentity((s) => s.recovered);
  const busy = useIdentity((s) => s.busy);
  const { undo, openConflict } = useIdentity.getState();
  if (!result && recovered.length === 0) return null;
  return (
    <section className="panel" aria-label="Merge result">
      {recovered.map((sentence) => (
        <p key={sentence} className="banner warning" role="status">
          {sentence}
        </p>
      ))}
      {result && <ResultOf result={result} undoNotes={undoNotes} busy={busy} undo={undo} openConflict={openConflict} />}
    </section>
  );
}

function ResultOf({
  result,
  undoNotes,
  busy,
  undo,
  openConflict,
}: {
  result: MergeRecord;
  undoNotes: string[];
  busy: boolean;
  undo: () => Promise<void>;
  openConflict: (n: number) => Promise<void>;
}) {
  const added = result.plan.files.filter((f) => f.action === 'add').length;
  return (
    <>
      {result.undone ? (
        <>
          <p>Undone: every directory is back as it was before.</p>
          {undoNotes.map((n) => (
            <p key={n} className="muted small">
              {n}
            </p>
          ))}
        </>
      ) : (
        <p>
          {result.kind === 'relink' ? 'Relinked' : 'Merged'}: {added} file{added === 1 ? '' : 's'} moved to {result.plan.target.dir}, one history entry in each
          directory.{' '}
          <button onClick={() => void undo()} disabled={busy}>
            Undo {result.kind}
          </button>
        </p>
      )}
      {!result.undone &&
        result.conflicts.map((c) => (
          <p key={c.n}>
            {c.file}: {c.status === 'open' ? 'both sides differ' : `resolved (${c.resolution})`}{' '}
            {c.status === 'open' && <button onClick={() => void openConflict(c.n)}>Resolve {c.file}</button>}
          </p>
        ))}
    </>
  );
}

function ConflictEditor() {
  const conflict = useIdentity((s) => s.conflict);
  const busy = useIdentity((s) => s.busy);
  const secrets = useIdentity((s) => s.secrets);
  const { resolve, closeConflict, keepEditing } = useIdentity.getState();
  if (!conflict) return null;
  const { sides } = conflict;
  return (
    <Suspense fallback={null}>
      <MergeView
        key={`${conflict.id}:${sides.conflict.n}`}
        label={`Resolve ${sides.conflict.file}`}
        heading={sides.conflict.file}
        subtitle={`in ${sides.conflict.memoryDir} · the other version came from ${sides.source}`}
        theirs={{ title: 'The version here (kept in place)', text: sides.here }}
        mine={{ title: `The version from ${sides.source}`, text: sides.moved }}
        initial={sides.both}
        note="Starts as every line of both versions, common lines once. Edit it, then save: it is written as one history entry."
        busy={busy}
        onClose={closeConflict}
        secrets={secrets && { refusal: secrets, saveAnyway: (text) => void resolve('merged', text, secrets.allowSecrets), back: keepEditing }}
        actions={[
          { label: 'Keep this one', title: 'Leave the file as it is; the other version stays in history', run: () => void resolve('here') },
          { label: 'Take the moved one', run: () => void resolve('moved') },
          {
            label: 'Keep both',
            title: 'Write every line of both versions, common lines once: the text the result started from, whatever you typed since',
            run: () => void resolve('both'),
          },
          { label: 'Save merge', primary: true, run: (text) => void resolve('merged', text) },
        ]}
      />
    </Suspense>
  );
}

/**
 * How many orphans the dashboard shows before "Show all": a home where Claude Code ran in many
 * folders since removed (scratch and temporary directories) would otherwise fill the first screen.
 */
const ORPHANS_SHOWN = 5;

/** Those with a place their project may have gone first (one click to relink), then the most recently active. */
function orphansFirstToAct(orphans: readonly Orphan[]): Orphan[] {
  return [...orphans].sort(
    (a, b) =>
      Number(b.candidates.length > 0) - Number(a.candidates.length > 0) || (b.lastActivityMs ?? 0) - (a.lastActivityMs ?? 0) || a.dir.localeCompare(b.dir),
  );
}

function Orphans() {
  const report = useIdentity((s) => s.report);
  const busy = useIdentity((s) => s.busy);
  const { previewRelink, addLookIn } = useIdentity.getState();
  const [folder, setFolder] = useState('');
  const [paths, setPaths] = useState<Record<string, string>>({});
  const [showAll, setShowAll] = useState(false);
  if (!report || report.orphans.length === 0) return null;
  const orphans = orphansFirstToAct(report.orphans);
  const shown = showAll ? orphans : orphans.slice(0, ORPHANS_SHOWN);
  return (
    <section className="panel" aria-label="Orphaned memory">
      <h2>Orphaned memory</h2>
      <p className="muted small">
        These memories were left behind: the folders their sessions ran in no longer exist, so Claude Code reads another, empty memory. Where did the project
        go?
      </p>
      {shown.map((o) => (
        <div key={o.dir} className="orphan" aria-label={`Orphan ${o.dir}`}>
          <strong>{o.paths[0] ?? o.dir}</strong>{' '}
          <span className="muted small">
            {o.memories.private} {o.memories.private === 1 ? 'memory' : 'memories'}
            {o.memories.team ? `, ${o.memories.team} team` : ''} · last active {ago(o.lastActivityMs)}
          </span>
          <ul>
            {o.candidates.map((c) => (
              <li key={c.path}>
                {c.path}{' '}
                <span className="muted small">
                  ({describeEvidence(c.evidence)}; found in {c.origin}
                  {c.claimedBy.length ? `; also claimed by ${c.claimedBy.join(', ')}` : ''})
                </span>{' '}
                <button onClick={() => void previewRelink(o.dir, c.path)} disabled={busy}>
                  Relink here…
                </button>
              </li>
            ))}
            <li>
              <input
                aria-label={`New path for ${o.dir}`}
                placeholder="/path/where/the/project/is/now"
                value={paths[o.dir] ?? ''}
                onChange={(e) => setPaths({ ...paths, [o.dir]: e.target.value })}
              />{' '}
              <button disabled={busy || !(paths[o.dir] ?? '').trim()} onClick={() => void previewRelink(o.dir, paths[o.dir]!.trim())}>
                Relink to this path…
              </button>
            </li>
          </ul>
        </div>
      ))}
      {orphans.length > ORPHANS_SHOWN && (
        <button className="link" aria-expanded={showAll} onClick={() => setShowAll(!showAll)}>
          {showAll ? `Show the first ${ORPHANS_SHOWN} only` : `Show all ${orphans.length} orphans (${orphans.length - ORPHANS_SHOWN} more)`}
        </button>
      )}
      <div className="toolbar">
        <input aria-label="Look for projects in" placeholder="Look for projects in a folder…" value={folder} onChange={(e) => setFolder(e.target.value)} />
        <button disabled={busy || !folder.trim()} onClick={() => void addLookIn(folder)}>
          Look
        </button>
        <span className="muted small">
          Also searched: {[...report.searched.workspaces, ...report.searched.given].join(', ') || 'the folders sessions ran in (add workspaces in Settings)'}
        </span>
      </div>
    </section>
  );
}

function CloneGroups() {
  const groups = useIdentity((s) => s.groups);
  const busy = useIdentity((s) => s.busy);
  const { previewMerge, keepApart } = useIdentity.getState();
  if (groups.length === 0) return null;
  return (
    <section className="panel" aria-label="One project in several places">
      <h2>One project in several places</h2>
      {groups.map((g) => {
        const [into, ...rest] = g.projects;
        return (
          <div key={g.key} className="clone-group">
            <p className="muted small">
              {g.projects.length} memory folders of the same repository ({describeEvidence(g.evidence)}). Claude Code keeps a memory per path.
            </p>
            <ul>
              {g.projects.map((p) => (
                <li key={p.dir}>
                  {p.path ?? p.dir}{' '}
                  <span className="muted small">
                    ({plural(p.memories, 'memory', 'memories')}, changed {ago(p.lastChangeMs)})
                  </span>
                </li>
              ))}
            </ul>
            {rest.map((from) => (
              <button key={from.dir} disabled={busy} onClick={() => void previewMerge(from.dir, into!.dir)}>
                Merge {from.path ?? from.dir} into {into!.path ?? into!.dir}…
              </button>
            ))}{' '}
            <button disabled={busy} onClick={() => void keepApart(g.projects.map((p) => p.dir))}>
              Keep apart
            </button>
          </div>
        );
      })}
    </section>
  );
}

/** Everything above, in the order a person meets it. */
export function IdentityPanels() {
  const preview = useIdentity((s) => s.preview);
  const error = useIdentity((s) => s.error);
  useEffect(() => {
    void useIdentity.getState().load();
  }, []);
  return (
    <>
      {error && <div className="banner error">{error}</div>}
      {preview ? <Preview plan={preview.plan} /> : null}
      <Result />
      <ConflictEditor />
      <Orphans />
      <CloneGroups />
    </>
  );
}
