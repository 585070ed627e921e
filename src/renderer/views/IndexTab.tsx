/**
 * MEMORY.md as the agent sees it: the loaded part, the cut part and what Claude Code strips
 * first visibly apart, with the load meter; "What the agent sees" — the exact text of the next
 * session start, and a warning when the last session was given something else (R-INDEX);
 * editing shows, before saving, which pointers the new text would push past the cut, and asks
 * first when the edit drops the pointers to memories that exist; a save has one Undo. An unsaved
 * edit is a draft (stores/drafts.ts), kept when the tab, scope, project or window goes; a save over
 * a change made on disk meanwhile is merged by main, and where both changed the same lines both
 * versions are shown (MergeView) to keep theirs, mine (theirs stays in history) or a merge. With auto
 * memory off Claude Code loads no index at all: the view says so and why (settings-text.ts).
 * team/MEMORY.md is shown and edited as the file the team shares, never as loaded: Claude Code
 * 2.1.332 does not load it (index-state.ts), so it has no meter, no cut and no Make room.
 */
import { markdown } from '@codemirror/lang-markdown';
import { EditorView } from '@uiw/react-codemirror';
import { CodeEditor } from '../components/CodeEditor.js';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AgentIndexViewShape } from '../../shared/contract/memories.js';
import { cutOfIndex, cutPointersText } from '../../shared/index-cut.js';
import { parseIndex } from '../../shared/index-format.js';
import { TEAM_INDEX_NOT_LOADED } from '../../shared/index-state.js';
import { indexImpact, sizeAgainstLimits } from '../../shared/index-impact.js';
import { lineFate, loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../shared/limits.js';
import type { Scope } from '../../shared/memory-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { autoMemoryOffSentence, unappliedSettingsLines } from '../../shared/settings-text.js';
import { mergeLines } from '../../shared/line-merge.js';
import { IndexReorder } from '../components/IndexReorder.js';
import { MergeView } from '../components/MergeView.js';
import { Time } from '../components/Time.js';
import { LoadMeter } from '../components/LoadMeter.js';
import { MakeRoom } from '../components/MakeRoom.js';
import { SecretConfirm } from '../components/SecretConfirm.js';
import { Question } from '../components/DialogFocus.js';
import { useCuration } from '../stores/curation.js';
import { indexDraft, indexDraftRef, useDrafts } from '../stores/drafts.js';
import { useIndexFile } from '../stores/index-file.js';
import { useIndexOrder } from '../stores/index-order.js';
import { useProject } from '../stores/project.js';

const INDEX_EXTENSIONS = [markdown(), EditorView.lineWrapping];

export function IndexTab({ dir, scan, initialScope }: { dir: string; scan: ProjectScan; initialScope?: Scope | undefined }) {
  const [scope, setScope] = useState<Scope>(initialScope ?? 'private');
  // What main says of this index; another index's answers are not this one's.
  const text = useIndexFile((s) => (s.dir === dir && s.scope === scope ? s.text : null));
  const error = useIndexFile((s) => (s.dir === dir && s.scope === scope ? s.error : null));
  // Why Memdir will not edit this index (its lines are then shown as Claude Code reads them), or null.
  const readOnly = useIndexFile((s) => (s.dir === dir && s.scope === scope ? s.readOnly : null));
  // No MEMORY.md: an edit starts from the file Claude Code would write, so saving keeps the other memories listed.
  const builtText = useIndexFile((s) => (s.dir === dir && s.scope === scope ? s.built : null));
  const agent = useIndexFile((s) => (s.dir === dir && s.scope === scope ? s.agent : null));
  const secrets = useIndexFile((s) => (s.dir === dir && s.scope === scope ? s.secrets : null));
  const conflict = useIndexFile((s) => (s.dir === dir && s.scope === scope ? s.conflict : null));
  const draftRef = useMemo(() => indexDraftRef(dir, scope), [dir, scope]);
  const memoryDir = (scope === 'team' ? scan.team?.memoryDir : scan.memoryDir) ?? scan.memoryDir;
  // When the editor holds a draft kept from before (another tab, project, a closed window).
  const [restoredAt, setRestoredAt] = useState<string | null>(null);
  // The editor's text and the file text it started from: saving checks the file still holds `base`.
  const [edit, setEdit] = useState<{ base: string; draft: string } | null>(null);
  const draft = edit?.draft ?? null;
  // Asking before a save that drops the pointers to memories that exist.
  const [confirmDrop, setConfirmDrop] = useState(false);
  const [makingRoom, setMakingRoom] = useState(false);
  const [reordering, setReordering] = useState(false);
  const summary = scope === 'team' ? scan.team?.index : scan.index;
  // team/MEMORY.md: never loaded. Auto memory off, or Claude Code syncing memory stores: it loads no index (R-SETTINGS, R-INDEX).
  const team = scope === 'team';
  const stores = scan.problems.find((p) => p.code === 'no-index-loaded')?.message ?? null;
  const off = stores ?? (team ? TEAM_INDEX_NOT_LOADED : autoMemoryOffSentence(scan.settings));
  // No MEMORY.md yet: Claude Code writes one at its next session start (index-build.ts), as Health says.
  const built = team || off ? null : (scan.problems.find((p) => p.code === 'index-built')?.message ?? null);
  // Settings files Claude Code drops whole: what they say is not in force (the lines `memdir where` and `show` print).
  const unapplied = unappliedSettingsLines(scan.settings);
  const reload = useProject((s) => s.refresh);
  // Health's "Make room…" opens it here, for the index it was asked for.
  const asked = useCuration((s) => s.makeRoomFor);
  useEffect(() => {
    if (asked === null) return;
    setScope(asked);
    setEdit(null);
    setMakingRoom(true);
    useCuration.getState().askMakeRoom(null);
  }, [asked]);

  // Another project or index: leave the editor (its edit is kept as a draft: written now), and edit nothing until this index is read.
  useEffect(() => {
    setEdit(null);
    setRestoredAt(null);
    return () => void useDrafts.getState().flush();
  }, [dir, scope]);

  // This index read: an unsaved edit kept as its draft opens again in the editor.
  const loaded = text !== null;
  useEffect(() => {
    if (!loaded) return;
    let live = true;
    void useDrafts
      .getState()
      .find(draftRef)
      .then((d) => {
        if (!live || d === null) return;
        setEdit((e) => e ?? { base: d.baseText ?? '', draft: d.body });
        setRestoredAt(d.savedAt);
      });
    return () => {
      live = false;
    };
  }, [draftRef, loaded]);

  /** The edit changes: shown, and kept as the draft. */
  const change = (next: { base: string; draft: string }) => {
    setEdit(next);
    useDrafts.getState().keep(indexDraft(draftRef, memoryDir, next));
  };
  /** The edit ends (saved, cancelled, theirs taken): its draft goes. */
  const close = () => {
    setEdit(null);
    setRestoredAt(null);
    void useDrafts.getState().discard(draftRef);
  };

  // The file changed (a rescan read it again): an untouched draft follows it; an edited one keeps
  // the text it started from, so its save is refused rather than overwriting the other writer.
  useEffect(() => {
    if (text !== null) setEdit((e) => (e !== null && e.draft === e.base && e.base !== text ? { base: text, draft: text } : e));
  }, [text]);

  useEffect(() => {
    void useIndexFile.getState().load(dir, scope);
  }, [dir, scope, scan]);

  const shown = draft ?? text ?? '';
  const dirScan = scope === 'team' ? scan.team : scan;
  // What Claude Code loads of a text and what its cut hides, by the rule every place counts with (index-cut.ts).
  const viewOf = useCallback(
    (of: string) => {
      const load = loadIndexAsClaudeCode(of);
      const parsed = parseIndex(of);
      const { lines: cutLines, facts } = cutOfIndex(parsed, load, dirScan ?? null);
      return { load, lines: parsed.lines, cutCount: cutLines.length, cutText: cutPointersText(cutLines.length, facts), facts };
    },
    [dirScan],
  );
  // The saved text's, read once per version of the file: a keystroke in the draft recomputes only the draft's.
  const saved = useMemo(() => (text === null ? null : viewOf(text)), [text, viewOf]);
  const view = useMemo(() => (draft === null && saved !== null ? saved : viewOf(shown)), [draft, saved, shown, viewOf]);
  // The gauge says what this index's cut hides, as the line below says it: of the saved text (a draft has its own line).
  const savedFacts = saved?.facts ?? null;
  const impact = useMemo(() => (draft !== null && text !== null ? indexImpact(text, { kind: 'replace', text: draft }) : null), [draft, text]);

  // Memories that exist whose pointer the edit took out of the index: they become orphans. Only
  // those the person removed — a pointer Claude Code added on disk meanwhile is kept by the merge.
  const base = edit?.base ?? null;
  const dropping = useMemo(() => {
    if (draft === null || base === null) return [];
    const memories = new Set(((scope === 'team' ? scan.team?.memories : scan.memories) ?? []).map((m) => m.file));
    return indexImpact(base, { kind: 'replace', text: draft }).dropped.filter((f) => memories.has(f));
  }, [base, draft, scan, scope]);

  const save = async (confirmed = false, allowSecrets?: string[]) => {
    if (edit === null) return;
    if (dropping.length > 0 && !confirmed) {
      setConfirmDrop(true);
      return;
    }
    setConfirmDrop(false);
    await saveText(edit, allowSecrets);
  };

  const saveText = async (e: { base: string; draft: string }, allowSecrets?: string[]) => {
    if (!(await useIndexFile.getState().save(dir, scope, e, allowSecrets))) return;
    close();
    await reload();
  };

  // Ctrl+S (Cmd+S) saves while editing, as in the memory editor (README's keyboard list).
  const saveRef = useRef(save);
  const saveButton = useRef<HTMLButtonElement>(null);
  saveRef.current = save;
  const editing = edit !== null;
  useEffect(() => {
    if (!editing) return;
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void saveRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [editing]);

  return (
    <div className="index-tab">
      <div className="toolbar">
        {scan.team && (
          <select aria-label="Which index" value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
            <option value="private">Private MEMORY.md</option>
            <option value="team">Team MEMORY.md</option>
          </select>
        )}
        {summary && !team && (
          <LoadMeter
            index={{ ...summary, ...(savedFacts ?? {}) }}
            off={off ? { why: off, label: stores ? 'Claude Code syncs memory stores' : 'auto memory is off' } : null}
          />
        )}

        {summary?.exists && !team && draft === null && !makingRoom && !reordering && !readOnly && (
          <button
            className={summary.firstCutLine !== null ? 'primary' : ''}
            onClick={() => setMakingRoom(true)}
            title="Shorten, merge, move or drop entries, with the loaded part shown as you choose"
          >
            Make room…
          </button>
        )}
      </div>
      {error && <div className="banner error">{error}</div>}
      {readOnly && (
        <div className="banner warning" role="status" aria-label="MEMORY.md is read-only">
          This MEMORY.md is shown read-only: {readOnly}. Claude Code still reads it: its lines are shown below as Claude Code reads them
          {/\uFFFD/.test(text ?? '') ? ' (a byte that is not UTF-8 shows as �)' : ''}. Fix the file outside Memdir to edit it here.
        </div>
      )}
      {unapplied.length > 0 && (
        <div className="banner warning" role="status" aria-label="Settings not applied">
          {unapplied.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
      {off && (
        <div className="banner warning" role="status" aria-label="Index not loaded">
          {off}
        </div>
      )}
      {built && (
        <div className="banner info" role="status" aria-label="Index built by Claude Code">
          {built}
        </div>
      )}
      {makingRoom && !team && text !== null && !readOnly ? (
        <MakeRoom
          scope={scope}
          text={text}
          dir={dirScan ?? null}
          onClose={() => {
            setMakingRoom(false);
            void reload();
          }}
        />
      ) : reordering ? (
        <IndexReorder
          scope={scope}
          onDone={() => {
            setReordering(false);
            void reload();
          }}
        />
      ) : conflict !== null ? (
        <IndexConflict
          conflict={conflict}
          keep={(t) => void saveText({ base: conflict.theirs, draft: t })}
          takeTheirs={() => {
            const kept = useDrafts.getState().drafts;
            const stored = Object.values(kept).find((d) => d.dir === dir && d.scope === scope && d.file === draftRef.file);
            setEdit(null);
            setRestoredAt(null);
            useIndexFile.setState({ conflict: null });
            void (stored ? useDrafts.getState().throwAway(stored) : useDrafts.getState().discard(draftRef));
          }}
          back={() => useIndexFile.setState({ conflict: null })}
        />
      ) : draft === null ? (
        <>
          {!team && (
            <p className="muted small">
              At the start of every session Claude Code strips this file&apos;s frontmatter and comment blocks, then loads only the first {INDEX_MAX_LINES}{' '}
              lines or {INDEX_MAX_CHARS.toLocaleString('en-US')} characters (UTF-16 code units, so Chinese text counts one per character) of what is left. Past
              the cut it tells the agent, never you.
            </p>
          )}
          {/* Focusable: a long index scrolls inside this box, and the keyboard scrolls it too. */}
          <ol className="index-lines" aria-label="MEMORY.md lines" tabIndex={0}>
            {view.lines.map((l) => {
              // Lines of team/MEMORY.md neither load nor fall past a cut: none reaches the agent.
              const fate = team ? 'unloaded' : lineFate(view.load, l.line);
              return (
                <li
                  key={l.line}
                  className={`${fate} ${l.kind}`}
                  value={l.line}
                  title={fate === 'hidden' ? 'Stripped by Claude Code before loading' : undefined}
                >
                  {!team && view.load.firstCutLine === l.line && (
                    <div className="cut-line" role="separator">
                      ✂ The agent never sees anything below this line: {view.cutText}
                    </div>
                  )}
                  <code>{l.raw || ' '}</code>
                </li>
              );
            })}
          </ol>
          <button
            disabled={text === null || readOnly !== null}
            title={readOnly ? `Read-only: ${readOnly}` : undefined}
            onClick={() => text !== null && setEdit({ base: text, draft: builtText ?? text })}
          >
            Edit MEMORY.md
          </button>{' '}
          <button
            disabled={readOnly !== null}
            title={readOnly ? `Read-only: ${readOnly}` : undefined}
            onClick={() => {
              setReordering(true);
              void useIndexOrder.getState().start(dir, scope);
            }}
          >
            Reorder entries
          </button>
          {agent && <AgentSees view={agent} />}
        </>
      ) : (
        <>
          {restoredAt && (
            <p className="banner info" role="status">
              Restored your unsaved edit of MEMORY.md from <Time at={restoredAt} />.
            </p>
          )}
          <CodeEditor
            label="MEMORY.md text"
            value={draft}
            height="420px"
            extensions={INDEX_EXTENSIONS}
            onChange={(v) => {
              setConfirmDrop(false);
              if (edit) change({ ...edit, draft: v });
            }}
          />
          <p className={!team && (view.load.truncated || (impact && impact.newlyCut.length > 0)) ? 'banner warning' : 'muted small'} aria-label="After saving">
            After saving: {team ? `${view.load.lines} ${view.load.lines === 1 ? 'line' : 'lines'}` : sizeAgainstLimits(view.load)}
            {/* Past the cut is past the cut, pointers or prose: the agent never sees those lines (R-INDEX). */}
            {stores
              ? ', but Claude Code syncs memory stores here: it loads none of it'
              : team
                ? `. ${TEAM_INDEX_NOT_LOADED}`
                : view.load.truncated
                  ? ` — MEMORY.md is ${view.load.reason}: from line ${view.load.firstCutLine} on nothing reaches the agent (${view.load.lines - view.load.loadedLines} ${view.load.lines - view.load.loadedLines === 1 ? 'line' : 'lines'}${view.cutCount > 0 ? `; ${view.cutText}` : ''})`
                  : off
                    ? ', but auto memory is off: Claude Code loads none of it'
                    : ', everything reaches the agent'}
            {!team && impact && impact.newlyCut.length > 0 ? ` — newly cut: ${impact.newlyCut.join(', ')}` : ''}
          </p>
          {secrets ? (
            <SecretConfirm
              refusal={secrets}
              saveAnyway={() => void save(true, secrets.allowSecrets)}
              back={() => useIndexFile.setState({ secrets: null })}
              backLabel="Keep editing"
            />
          ) : confirmDrop && dropping.length > 0 ? (
            <Question label="Confirm save" className="inline-form" inline={false} onClose={() => setConfirmDrop(false)} returnTo={saveButton}>
              <span>{droppingSentence(dropping, team)}</span>{' '}
              <button className="danger" onClick={() => void save(true)}>
                Save anyway
              </button>
              <button onClick={() => setConfirmDrop(false)} autoFocus>
                Keep editing
              </button>
            </Question>
          ) : (
            <div className="actions">
              <button className="primary" ref={saveButton} onClick={() => void save()}>
                Save MEMORY.md
              </button>
              <button
                onClick={() => {
                  setConfirmDrop(false);
                  close();
                  useIndexFile.setState({ secrets: null });
                }}
              >
                Cancel
              </button>
            </div>
          )}
        </>
      )}
    </div>
  );
}

/**
 * A save refused because the same lines changed on disk meanwhile: both versions side by side, and
 * a result that starts as their merge (where they overlap, both sides' lines, marked).
 */
function IndexConflict({
  conflict,
  keep,
  takeTheirs,
  back,
}: {
  conflict: { theirs: string; mine: string; base: string };
  keep: (text: string) => void;
  takeTheirs: () => void;
  back: () => void;
}) {
  const merge = useMemo(() => mergeLines(conflict.base, conflict.mine, conflict.theirs, {}, { besideInsertions: true }), [conflict]);
  return (
    <MergeView
      label="MEMORY.md changed on disk"
      heading="MEMORY.md changed on disk while you were editing it"
      subtitle="Claude Code (or another writer) changed lines you changed too. Nothing has been saved."
      theirs={{ title: 'On disk now', text: conflict.theirs }}
      mine={{ title: 'Yours (not saved)', text: conflict.mine }}
      initial={merge.both}
      overlaps={merge.bothOverlaps}
      note="The result starts as both versions merged; edit it, then save it — or keep one version whole. What is on disk now stays in history either way."
      busy={false}
      actions={[
        { label: 'Save the merge', primary: true, run: keep },
        { label: 'Keep mine (theirs stays in history)', run: () => keep(conflict.mine) },
        { label: 'Take theirs (set my edit aside)', run: takeTheirs },
      ]}
      onClose={back}
    />
  );
}

/** The question before a save that drops pointers: how many memories lose theirs, and what that means (team/MEMORY.md's never reached the agent). */
function droppingSentence(files: string[], team: boolean): string {
  const n = files.length;
  const named = n <= 5 ? files.join(', ') : `${files.slice(0, 5).join(', ')} and ${n - 5} more`;
  const memories = n === 1 ? '1 memory' : `${n} memories`;
  const loss = team ? ' from team/MEMORY.md' : `: the agent will no longer find ${n === 1 ? 'it' : 'them'}`;
  return `This save removes the pointers to ${memories} (${named})${loss}. ${n === 1 ? 'It stays' : 'They stay'} on disk, and Undo puts the pointers back. Save anyway?`;
}

/** "What the agent sees": the next session's index text, and whether the last session got the same. */
function AgentSees({ view }: { view: AgentIndexViewShape }) {
  // With auto memory off nothing is loaded: an index the last session got is not a misprediction.
  const none = view.autoMemoryOff ?? view.storesLoadNoIndex;
  const differs = none === null && view.lastInjected !== null && view.lastInjected !== view.text;
  const version = view.claudeCodeVersion
    ? `Claude Code ${view.claudeCodeVersion}`
    : `Claude Code (version unknown: ${view.hasTranscript ? 'its transcripts do not say' : 'no transcript yet'})`;
  return (
    <section className="agent-sees" aria-label="What the agent sees">
      <h2>What the agent sees</h2>
      <p className="muted small">
        {view.autoMemoryOff
          ? `${version} loads no index at the next session start: auto memory is off.`
          : view.storesLoadNoIndex
            ? view.storesLoadNoIndex
            : view.builtByClaudeCode
              ? `The index ${version} will write as MEMORY.md and load at the next session start.`
              : `The index exactly as ${version} will load it at the next session start${view.truncated ? `, cut: MEMORY.md is ${view.reason}` : ''}.`}
      </p>
      {differs && (
        <div className="banner warning" role="status">
          The last session was given a different index than the one Claude Code will load next: MEMORY.md changed since, or Claude Code read it differently than
          Memdir predicts.
        </div>
      )}
      {view.lastInjected === null && <p className="muted small">No transcript records what the last session was given.</p>}
      <pre className="agent-text" aria-label="Index text the agent gets" tabIndex={0}>
        {view.text ||
          (view.autoMemoryOff
            ? '(nothing: auto memory is off)'
            : view.storesLoadNoIndex
              ? '(nothing: Claude Code syncs memory stores)'
              : '(nothing: Claude Code loads no index)')}
      </pre>
      {(differs || (none !== null && view.lastInjected !== null)) && (
        <details>
          <summary>What the last session was given</summary>
          <pre className="agent-text" aria-label="Index text the last session got" tabIndex={0}>
            {view.lastInjected}
          </pre>
        </details>
      )}
    </section>
  );
}
