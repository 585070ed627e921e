/**
 * A project's dreams (SPEC §5): each gate with its value and when the project is next eligible;
 * "Dream now" (skips the time and session gates, never the lock); the running dream's phases
 * with cancel; and the history of dreams — when, trigger, duration, tokens, files — with what
 * each changed (per-file diffs), what it flagged for you, and revert.
 */
import { useEffect, useRef } from 'react';
import type { DreamRecord, DreamStatusView } from '../../shared/contract/dream.js';
import { plural } from '../../shared/size-text.js';
import { Breakable } from '../components/Breakable.js';
import { type CardColumn, CardRow, CardTable } from '../components/CardTable.js';
import { DiffView } from '../components/DiffView.js';
import { DreamChart } from '../components/DreamChart.js';
import { DreamProgress } from '../components/DreamProgress.js';
import { when } from '../components/format.js';
import { Time } from '../components/Time.js';
import { dreamFacts, duration, until, useDream } from '../stores/dream.js';

const GATE_COLUMNS: CardColumn[] = [{ label: 'Gate', bare: true }, { label: 'Value' }, { label: 'Needs' }, { label: 'Verdict' }, { label: 'Detail' }];
/** A dream's files changed: what happened to each file heads its card. */
const CHANGE_COLUMNS: CardColumn[] = [{ label: 'Change', bare: true }, { label: 'File' }, { label: 'Kind' }, { label: 'Why', wide: true }];
const GATE_LABEL = { time: 'Time since the last dream', sessions: 'Sessions since then', lock: 'Consolidation lock' } as const;

function value(g: DreamStatusView['gates']['gates'][number]): string {
  if (!g.checked) return '—';
  if (g.name === 'time') return g.value === null ? 'never dreamt' : `${g.value} h`;
  return String(g.value ?? '—');
}

function Gates({ status }: { status: DreamStatusView }) {
  const { gates } = status;
  const next = until(gates.nextEligibleAt ?? null);
  return (
    <section aria-label="Dream gates">
      <h2>Gates</h2>
      {gates.disabled && <p className="banner warning">{gates.disabled.detail}</p>}
      {status.recovered && (
        <p className="banner warning" role="status">
          {status.recovered.detail}
        </p>
      )}
      <CardTable className="gates" label="Gates" columns={GATE_COLUMNS}>
        {gates.gates.map((g) => (
          <CardRow key={g.name} data-gate={g.name}>
            <td>{GATE_LABEL[g.name]}</td>
            <td>{value(g)}</td>
            <td>{g.threshold === null ? 'free' : g.name === 'time' ? `${g.threshold} h` : g.threshold}</td>
            <td>
              {!g.checked ? (
                <span className="muted">not checked</span>
              ) : g.passed ? (
                <span className="badge ok">open</span>
              ) : (
                <span className="badge warning">closed</span>
              )}
            </td>
            <td className="small">{g.detail}</td>
          </CardRow>
        ))}
      </CardTable>
      <p className="small">
        {gates.eligible ? <strong>Eligible now: </strong> : null}
        Last dream: <Time at={gates.lastConsolidatedAt} />
        {next && next !== 'now' ? ` · next eligible ${next} (${when(gates.nextEligibleAt!)}), when enough sessions have run` : ''}
        {status.lock ? ` · lock: ${status.lock.detail}` : ''}
      </p>
      <p className="muted small">
        {status.scheduled && !gates.disabled
          ? 'Memdir dreams this project by itself when every gate is open. '
          : gates.disabled
            ? ''
            : 'Scheduled dreams run while the app is open. '}
        It consolidates with {status.method.detail} A dream may remove at most {Math.round(status.thresholds.maxDeleteShare * 100)}% of the memories without
        asking you.
      </p>
      <p className="small" data-testid="claude-code-dream" title={status.claudeCode.flagFile ?? undefined}>
        <strong>Claude Code itself {status.claudeCode.wouldDream ? 'dreams this project' : 'does not dream this project'}.</strong> {status.claudeCode.reason}
      </p>
    </section>
  );
}

function DreamDetail({ dream }: { dream: DreamRecord }) {
  const { diff, diffFile, revert, busy } = useDream();
  const { select, revertDream, confirm, now } = useDream.getState();
  const facts = dreamFacts(dream);
  const reverted = dream.revert !== null && dream.revert.warnings.length === 0;
  // A refused revert's warnings (nothing written); those of a revert anyway say what was overwritten, not what stopped it.
  const open = dream.revert?.warnings ?? (revert?.rev === null ? revert.warnings : []);
  return (
    <section className="dream-detail" aria-label={`Dream ${dream.id}`}>
      <div className="toolbar">
        <strong>Dream {dream.id}</strong>
        <span className="chip">{dream.status}</span>
        <span className="spacer" />
        {dream.rev && !reverted && (
          <button
            onClick={() => void revertDream(dream.id)}
            disabled={busy}
            title="Put the files it changed back as they were before it; files changed since are left alone"
          >
            Revert this dream
          </button>
        )}
        {dream.status === 'needs-confirmation' && (
          <button className="primary" onClick={() => void confirm(dream.id)} disabled={busy}>
            Apply anyway
          </button>
        )}
      </div>
      {dream.status === 'needs-confirmation' && (
        <p className="banner warning">
          Held back: it removes {dream.deletions.count} of {dream.deletions.total} memories, more than the {dream.deletions.limit} allowed without your
          confirmation. Review the planned changes, then apply them anyway — or{' '}
          <button className="link" onClick={() => dream.dir && void now(dream.dir)}>
            dream again
          </button>
          .
        </p>
      )}
      {reverted && (
        <p className="banner">
          Reverted <Time at={dream.revert!.at} />: {dream.revert!.restored.join(', ')} put back (recorded in history, restorable).
        </p>
      )}
      {open.length > 0 && (
        <div className="banner warning" role="alert">
          <p>Memories changed since this dream, so nothing was reverted (MEMORY.md lines added since are always kept):</p>
          <ul>
            {open.map((w) => (
              <li key={w.file}>{w.message}</li>
            ))}
          </ul>
          <button onClick={() => void revertDream(dream.id, true)} disabled={busy}>
            Revert anyway (overwrite them)
          </button>
        </div>
      )}
      <p className="muted small">
        <Time at={dream.startedAt} /> · {dream.trigger} · {duration(dream.durationMs)} ·{' '}
        {dream.method === 'model' ? `model ${dream.model ?? ''}` : 'offline rules'} · {facts.tokens.toLocaleString('en')} tokens · {plural(facts.files, 'file')}{' '}
        changed
        {facts.skipped ? ` · ${facts.skipped} left alone` : ''}
      </p>
      {dream.fallbackReason && <p className="banner warning">The offline rules ran instead of the model: {dream.fallbackReason}</p>}
      {dream.error && <p className="banner error">{dream.error}</p>}
      {dream.changes.length > 0 && (
        <CardTable label="Files changed" columns={CHANGE_COLUMNS}>
          {dream.changes.map((c) => (
            <CardRow key={`${c.file}-${c.action}`} className={diffFile === c.file ? 'selected' : ''}>
              <td>
                <span className={`badge ${c.action === 'delete' ? 'error' : c.action === 'create' ? 'ok' : ''}`}>{c.action}</span>
              </td>
              <td className="file">
                {dream.rev ? (
                  <button className="link" onClick={() => void select(dream.id, diffFile === c.file ? null : c.file)} title="Show only this file's diff">
                    <code>
                      <Breakable text={c.file} />
                    </code>
                  </button>
                ) : (
                  <code>
                    <Breakable text={c.file} />
                  </code>
                )}
              </td>
              <td>
                <span className="chip">{c.kind}</span>
                {c.status !== 'applied' && <span className="chip">{c.status}</span>}
              </td>
              <td className="small reason">
                {/* File names in a sentence wrap at their separators, not letter by letter (s44, 320 px). */}
                <Breakable text={(c.status === 'skipped' ? c.skippedReason : c.reason) ?? ''} />
              </td>
            </CardRow>
          ))}
        </CardTable>
      )}
      {dream.flags.length > 0 && (
        <section aria-label="For you to look at">
          <h3>For you to look at</h3>
          <ul className="dream-flags">
            {dream.flags.map((f, i) => (
              <li key={i}>
                <span className={`chip flag-${f.kind}`}>{f.kind}</span> {f.message}
              </li>
            ))}
          </ul>
        </section>
      )}
      {dream.rev && (
        <section aria-label="Diff">
          <h3>
            Diff{diffFile ? ` of ${diffFile}` : ''}{' '}
            {diffFile && (
              <button className="small" onClick={() => void select(dream.id, null)}>
                Show all files
              </button>
            )}
          </h3>
          <DiffView diff={diff} />
        </section>
      )}
    </section>
  );
}

export function DreamTab({ dir, version }: { dir: string; version?: unknown }) {
  const { status, dreams, selected, job, busy, error } = useDream();
  const { open, now, select, cancel } = useDream.getState();
  useEffect(() => {
    void open(dir);
  }, [dir, open]);
  // The memory changed (an Undo of a revert, History's Undo of a dream): the dreams' records say whether each is reverted now.
  // Once per burst of changes (a dream writing 30 files is one read), and not for the memory as the tab opened on it (`open` reads).
  const shown = useRef(version);
  useEffect(() => {
    if (version === undefined || version === shown.current) return;
    shown.current = version;
    useDream.getState().onMemoryChanged(dir);
  }, [dir, version]);
  const current = dreams.find((d) => d.id === selected) ?? null;
  const running = job && (job.state === 'running' || job.state === 'queued');
  return (
    <div className="dream">
      <div className="toolbar">
        <button
          className="primary"
          onClick={() => void now(dir)}
          disabled={busy || Boolean(running)}
          title="Consolidate now: skips the time and session gates, never the lock"
        >
          Dream now
        </button>
        {status && <span className="chip">{status.method.kind === 'model' ? 'with a model' : 'offline rules'}</span>}
      </div>
      {error && <div className="banner error">{error}</div>}
      {job && (running || job.state !== 'done') && <DreamProgress job={job} onCancel={() => void cancel()} />}
      {status && <Gates status={status} />}
      <h2>History</h2>
      <DreamChart dreams={dreams} />
      {dreams.length === 0 ? (
        <p className="muted">
          No dream yet.{' '}
          {status?.scheduled && !status.gates.disabled
            ? 'Dream now, or let the gates open: Memdir dreams by itself while the app runs.'
            : 'Dream now to consolidate.'}
        </p>
      ) : (
        <div className="split dream-split">
          <div className="pane list-pane">
            <ol className="timeline" aria-label="Dreams">
              {dreams.map((d) => {
                const facts = dreamFacts(d);
                return (
                  <li key={d.id} className={d.id === selected ? 'selected' : ''}>
                    <button className="timeline-item" onClick={() => void select(d.id)} aria-current={d.id === selected}>
                      <span>
                        <span className="chip source-dream">{d.trigger}</span> <span className="chip">{d.revert ? 'reverted' : d.status}</span>
                      </span>
                      <span className="timeline-summary">
                        <Time at={d.startedAt} />
                      </span>
                      <span className="muted small">
                        {duration(d.durationMs)} · {facts.tokens.toLocaleString('en')} tokens · {plural(facts.files, 'file')}
                      </span>
                    </button>
                  </li>
                );
              })}
            </ol>
          </div>
          <div className="pane">{current && <DreamDetail dream={current} />}</div>
        </div>
      )}
    </div>
  );
}
