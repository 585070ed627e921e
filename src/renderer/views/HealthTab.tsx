/**
 * Health problems of the project's memory, each explained, fixable in one click when safe — with
 * what each fix does to the part of MEMORY.md the agent loads shown before it is applied
 * (R-INDEX): orphans whose pointers would fall below the cut are held back and offered as a
 * choice, an index past its limit gets Make room, and near-duplicate memories are listed side by
 * side with a merge.
 */
import { useEffect } from 'react';
import { sizeChange } from '../../shared/index-impact.js';
import type { Scope } from '../../shared/memory-types.js';
import { PROBLEM_WORDS, type Problem, fixRequestOf } from '../../shared/problems.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { Duplicates } from '../components/Duplicates.js';
import { type FixPreview, sameFix, useCuration } from '../stores/curation.js';
import { useNav } from '../stores/nav.js';
import { useProject, problemsOf } from '../stores/project.js';

const ORDER = { error: 0, warning: 1, hint: 2 } as const;
type ScopedProblem = Problem & { scope: Scope };

function aloneOf(p: ScopedProblem, previews: Partial<Record<Scope, FixPreview>>) {
  const fix = fixRequestOf(p);
  return fix ? previews[p.scope]?.each.find((e) => sameFix(e.fix, fix))?.alone : undefined;
}

function heldBackOf(p: ScopedProblem, previews: Partial<Record<Scope, FixPreview>>): boolean {
  const fix = fixRequestOf(p);
  return fix !== null && (previews[p.scope]?.heldBack.some((h) => sameFix(h, fix)) ?? false);
}

/** What "Fix all" would do, in words, before it is clicked. */
function FixAllEffect({ previews }: { previews: Partial<Record<Scope, FixPreview>> }) {
  const parts = (['private', 'team'] as const).flatMap((scope) => {
    const p = previews[scope];
    if (!p) return [];
    const { before, after } = p.impact;
    // A team orphan's pointer goes into MEMORY.md (memory-service.ts, pointerHome): the impact is then MEMORY.md's.
    const intoMain = scope === 'private' || [...p.applied, ...p.heldBack, ...p.stale].some((f) => f.kind === 'add-to-index');
    const name = scope === 'private' ? 'MEMORY.md' : intoMain ? 'MEMORY.md (team pointers)' : 'team/MEMORY.md';
    const change = sizeChange(name, before, after, intoMain);
    // team/MEMORY.md loads nothing (index-state.ts): its fixes change no part the agent gets.
    const loaded = !intoMain
      ? ', which Claude Code does not load'
      : after.truncated
        ? `; from line ${after.firstCutLine} on it is cut, ${after.cut} ${after.cut === 1 ? 'pointer' : 'pointers'} never seen`
        : '; everything reaches the agent';
    const newly = intoMain && p.impact.newlyCut.length > 0 ? `; ${p.impact.newlyCut.length} pointers would fall below the cut` : '';
    return [`${change}${loaded}${newly}.`];
  });
  return parts.length > 0 ? (
    <p className="small" aria-label="Effect of the fixes">
      Effect on what the agent loads: {parts.join(' ')}
    </p>
  ) : null;
}

export function HealthTab({ scan }: { scan: ProjectScan }) {
  const dir = useProject((s) => s.dir);
  const { previews, pairs, busy, error } = useCuration();
  const { load, fix, askMakeRoom, moveToPrivate } = useCuration.getState();
  const go = useNav((s) => s.go);
  const problems = problemsOf(scan).sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
  useEffect(() => {
    if (dir) void load(dir, problemsOf(scan));
  }, [dir, scan, load]);

  const fixable = problems.filter((p) => p.fix);
  const held = fixable.filter((p) => heldBackOf(p, previews));
  const safe = fixable.filter((p) => !heldBackOf(p, previews));
  // Room is made in MEMORY.md, the one index with a cut: a team memory's loading pointer goes there too (team/x.md).
  const makeRoom = () => {
    askMakeRoom('private');
    if (dir) go({ view: 'project', dir, tab: 'index' });
  };
  return (
    <div>
      {error && <div className="banner error">{error}</div>}
      {problems.length === 0 ? (
        <p className="ok-note">No problems: every memory is listed, every pointer leads somewhere, and the index fits.</p>
      ) : (
        <>
          <div className="toolbar">
            <span>
              {problems.length} {problems.length === 1 ? 'problem' : 'problems'}, {fixable.length} fixable safely
            </span>
            {safe.length > 0 && (
              <button className="primary" disabled={busy} onClick={() => void fix(safe)}>
                Fix {safe.length} safely
              </button>
            )}
            {held.length > 0 && (
              <>
                <button disabled={busy} onClick={makeRoom} title="Shorten hooks, merge or drop pointers so these fit under the cut">
                  Make room for {held.length}…
                </button>
                <button disabled={busy} onClick={() => void fix(held, { pastCut: true })} title="Claude Code never loads pointers below the cut">
                  Add {held.length} below the cut anyway
                </button>
              </>
            )}
          </div>
          {fixable.length > 0 && <FixAllEffect previews={previews} />}
          {held.length > 0 && (
            <p className="banner warning" role="note">
              {held.length === 1 ? '1 orphan is' : `${held.length} orphans are`} held back: adding {held.length === 1 ? 'it' : 'them'} would put{' '}
              {held.length === 1 ? 'its pointer' : 'their pointers'} below the cut, where Claude Code never loads them (a dream may have left them out to keep
              the index inside its limit; recall still finds them by their descriptions). Make room first, or add them below the cut anyway.
            </p>
          )}
          <ul className="problem-list" aria-label="Problems">
            {problems.map((p, i) => {
              const alone = aloneOf(p, previews);
              return (
                <li key={`${p.scope}-${p.code}-${p.file}-${p.line}-${i}`} className={p.severity}>
                  <span className={`badge ${p.severity}`}>{PROBLEM_WORDS[p.code]}</span>
                  <span className="problem-where">
                    {p.scope === 'team' ? 'team/' : ''}
                    {p.file ?? 'directory'}
                    {p.line ? `:${p.line}` : ''}
                  </span>
                  <span className="problem-message">
                    {p.message}
                    {alone && (
                      <span className="muted small fix-effect">
                        {' '}
                        {alone === 'loaded'
                          ? 'Fixing it adds a pointer that reaches the agent.'
                          : alone === 'below-cut'
                            ? 'Its pointer would land below the cut: Claude Code would never load it.'
                            : alone === 'frees'
                              ? 'Fixing it frees a line of MEMORY.md.'
                              : alone === 'quotes'
                                ? 'Fixing it quotes the value, so Claude Code reads all of it.'
                                : ''}
                      </span>
                    )}
                  </span>
                  {p.fix && (
                    <button
                      onClick={() => void fix([p], alone === 'below-cut' ? { pastCut: true } : {})}
                      aria-label={`Fix: ${p.message}`}
                      title={
                        alone === 'below-cut'
                          ? 'Its pointer would land below the cut: Claude Code would never load it'
                          : alone === 'loaded'
                            ? 'Its pointer reaches the agent'
                            : undefined
                      }
                      disabled={busy}
                    >
                      {p.fix === 'add-to-index'
                        ? alone === 'below-cut'
                          ? 'Add below the cut'
                          : p.scope === 'team'
                            ? 'Add to MEMORY.md'
                            : 'Add to index'
                        : p.fix === 'drop-pointer'
                          ? 'Remove pointer'
                          : p.fix === 'quote-value'
                            ? 'Quote it'
                            : 'Remove repeat'}
                    </button>
                  )}
                  {p.code === 'user-in-team' && p.file && !p.file.includes('/') && (
                    <button onClick={() => void moveToPrivate(p.file!)} disabled={busy} title="Moves the file and its index line; Undo puts it back">
                      Move to private
                    </button>
                  )}
                  {p.code === 'over-limit' && (
                    <button className="primary" onClick={makeRoom} disabled={busy}>
                      Make room…
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {pairs && <Duplicates pairs={pairs} />}
    </div>
  );
}
