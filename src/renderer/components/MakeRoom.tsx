/**
 * Make room (R-INDEX): an index past its cut, line by line — shorten a hook, move a long hook
 * into its memory, drop a pointer (its memory stays; recall still finds it), merge a memory into
 * another, move prose into a new topic file — with the loaded part worked out live by Claude
 * Code's own cut (previewRoom → loadIndexAsClaudeCode) and applied as one history entry.
 */
import { useMemo, useState } from 'react';
import { cutFactsText, cutOfIndex, cutPointersText } from '../../shared/index-cut.js';
import { type IndexEntry, indexLinks, parseIndex } from '../../shared/index-format.js';
import { lineFate, loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { sizeAgainstLimits } from '../../shared/index-impact.js';
import { LONG_HOOK, type RoomAction, previewRoom, roomNeeded, shortenHook } from '../../shared/index-room.js';
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../shared/limits.js';
import { MEMORY_TYPES, type MemoryType, type Scope } from '../../shared/memory-types.js';
import type { MemoryDirScan } from '../../shared/scan-types.js';
import { plural } from '../../shared/size-text.js';
import { useCuration } from '../stores/curation.js';
import './curation.css';

type Choice = { kind: 'keep' } | { kind: 'shorten' | 'move-hook'; hook: string } | { kind: 'drop' } | { kind: 'merge'; into: number };

const CHOICE_LABEL = {
  keep: 'Keep',
  shorten: 'Shorten the hook',
  'move-hook': 'Move the hook into the memory',
  drop: 'Drop the pointer',
  merge: 'Merge into…',
} as const;
const SHORT_HOOK = 80;

function toActions(choices: ReadonlyMap<number, Choice>, moves: readonly RoomAction[]): RoomAction[] {
  const actions: RoomAction[] = [];
  for (const [line, c] of choices) {
    if (c.kind === 'keep') continue;
    if (c.kind === 'merge') actions.push({ kind: 'merge', line, into: c.into });
    else if (c.kind === 'drop') actions.push({ kind: 'drop', line });
    else actions.push({ kind: c.kind, line, hook: c.hook });
  }
  return [...actions, ...moves];
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * `dir` is the scan of the index's directory: its memories and Health's missing files tell the
 * pointers below the cut apart (index-cut.ts); the counts themselves are pointer lines, what the
 * choices act on.
 */
export function MakeRoom({
  scope,
  text: current,
  dir,
  onClose,
}: {
  scope: Scope;
  text: string;
  dir: Pick<MemoryDirScan, 'memories' | 'problems'> | null;
  onClose: () => void;
}) {
  // Choices name lines of the text they were made on: it stays put while MEMORY.md changes on disk.
  const [text, setText] = useState(current);
  const [choices, setChoices] = useState<Map<number, Choice>>(new Map());
  const [moves, setMoves] = useState<RoomAction[]>([]);
  const [picked, setPicked] = useState<Set<number>>(new Set());
  const [form, setForm] = useState({ file: 'project_index_notes.md', name: '', description: '', type: 'project' as MemoryType });
  const busy = useCuration((s) => s.busy);
  const makeRoom = useCuration((s) => s.makeRoom);

  const parsed = useMemo(() => parseIndex(text), [text]);
  const beforeLoad = useMemo(() => loadIndexAsClaudeCode(text), [text]);
  const entries = parsed.lines.filter((l): l is IndexEntry => l.kind === 'entry');
  const actions = useMemo(() => toActions(choices, moves), [choices, moves]);
  const preview = useMemo(() => previewRoom(text, actions), [text, actions]);
  const afterLoad = useMemo(() => loadIndexAsClaudeCode(preview.text), [preview.text]);
  const { before, after } = preview.impact;
  const need = roomNeeded(after);
  const moved = useMemo(() => new Set(moves.flatMap((m) => (m.kind === 'move-lines' ? m.lines : []))), [moves]);

  // Where each line of the file lands after the choices, and whether it reaches the agent there.
  const fates = useMemo(() => {
    const out = new Map<number, 'loaded' | 'cut' | 'hidden' | 'removed'>();
    const gone = new Set(preview.merges.map((m) => m.other));
    let next = 0;
    for (const l of parsed.lines) {
      const c = choices.get(l.line);
      const firstMoved = moves.some((m) => m.kind === 'move-lines' && Math.min(...m.lines) === l.line);
      const removed = c?.kind === 'drop' || c?.kind === 'merge' || (moved.has(l.line) && !firstMoved) || (l.kind === 'entry' && gone.has(l.file));
      if (removed) {
        out.set(l.line, 'removed');
        continue;
      }
      next++;
      out.set(l.line, lineFate(afterLoad, next));
    }
    return out;
  }, [parsed, choices, moves, moved, preview.merges, afterLoad]);

  const firstCutRow = parsed.lines.find((l) => fates.get(l.line) === 'cut')?.line ?? null;
  // Header, button and result count the same thing: lines below the cut that hold a pointer.
  const beforeCut = useMemo(() => cutOfIndex(parsed, beforeLoad, dir), [parsed, beforeLoad, dir]);
  const afterCut = useMemo(() => cutOfIndex(parseIndex(preview.text), afterLoad, dir), [preview.text, afterLoad, dir]);
  // Lines that hold a pointer without being one (`- See [T](f.md) …`): they can be kept or dropped.
  const linkLines = useMemo(() => new Set(indexLinks(parsed).flatMap((l) => (l.primary ? [l.line] : []))), [parsed]);
  const set = (line: number, choice: Choice) => setChoices(new Map(choices).set(line, choice));

  const shortenLong = () => {
    const next = new Map(choices);
    for (const e of entries)
      if (e.hook.length > LONG_HOOK && (next.get(e.line)?.kind ?? 'keep') === 'keep')
        next.set(e.line, { kind: 'shorten', hook: shortenHook(e.hook, SHORT_HOOK) });
    setChoices(next);
  };
  // Every line below the cut that holds a pointer — a `- See [T](f.md) …` line as much as a `- [T](f.md) — hook` one.
  const dropCut = () => {
    const next = new Map(choices);
    for (const line of beforeCut.lines) if ((next.get(line)?.kind ?? 'keep') === 'keep' && !moved.has(line)) next.set(line, { kind: 'drop' });
    setChoices(next);
  };
  const addMove = () => {
    if (picked.size === 0) return;
    setMoves([
      ...moves,
      {
        kind: 'move-lines',
        lines: [...picked].sort((a, b) => a - b),
        file: form.file.trim(),
        name: form.name.trim(),
        description: form.description.trim(),
        type: form.type,
      },
    ]);
    setPicked(new Set());
  };
  const apply = async () => {
    if (await makeRoom(scope, text, actions)) onClose();
  };

  return (
    <section className="make-room" aria-label="Make room">
      <h2>Make room in {scope === 'team' ? 'team/MEMORY.md' : 'MEMORY.md'}</h2>
      <p className="muted small">
        Claude Code loads the first {INDEX_MAX_LINES} lines or {fmt(INDEX_MAX_CHARS)} characters. Choose, line by line, what to shorten, merge, move into a
        topic file or drop; the loaded part below follows every choice. Nothing is written until you apply — as one history entry, undone in one click.
      </p>
      <div className="room-summary" aria-live="polite" aria-label="Loaded part after your choices">
        <span>
          Now: {before.lines} lines, {fmt(before.chars)} characters
          {before.truncated ? `; below the cut: ${cutPointersText(before.cut, beforeCut.facts)}` : ''}
        </span>
        <span>→</span>
        <span>After: {sizeAgainstLimits(after)}</span>
        {after.truncated ? (
          <span className="over">
            Still cut from line {after.firstCutLine}: {plural(after.cut, 'pointer')} below it
            {cutFactsText(afterCut.facts) && ` (${cutFactsText(afterCut.facts)})`}
            {need.lines > 0 ? ` — ${need.lines} more ${need.lines === 1 ? 'line' : 'lines'} to go` : ''}
            {need.chars > 0 ? ` — ${fmt(need.chars)} more characters to go` : ''}
          </span>
        ) : (
          <span className="fits">Fits: everything reaches the agent</span>
        )}
        {preview.impact.newlyLoaded.length > 0 && <span className="muted small">{preview.impact.newlyLoaded.length} back above the cut</span>}
      </div>
      <div className="toolbar">
        <button
          onClick={shortenLong}
          disabled={!entries.some((e) => e.hook.length > LONG_HOOK)}
          title={`Shorten every hook longer than ${LONG_HOOK} characters to ${SHORT_HOOK}`}
        >
          Shorten long hooks
        </button>
        {beforeCut.lines.length > 0 && (
          <button
            onClick={dropCut}
            title="Takes out every line below the cut that points at a file. The memories stay: recall still finds them by their descriptions"
          >
            Drop the {beforeCut.lines.length === 1 ? 'pointer' : `${beforeCut.lines.length} pointers`} below the cut
          </button>
        )}
        <button
          onClick={() => {
            setChoices(new Map());
            setMoves([]);
            setPicked(new Set());
          }}
          disabled={actions.length === 0}
        >
          Clear choices
        </button>
      </div>
      {current !== text && (
        <div className="banner warning" role="status">
          MEMORY.md changed on disk since you started (Claude Code may have added a pointer). Your choices are for the text you started from; applying them now
          would be refused.{' '}
          <button
            onClick={() => {
              setText(current);
              setChoices(new Map());
              setMoves([]);
              setPicked(new Set());
            }}
          >
            Start over on the new text
          </button>
        </div>
      )}
      {preview.problems.length > 0 && (
        <ul className="banner error">
          {preview.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <div className="room-lines">
        <table aria-label="Index lines and your choices">
          <tbody>
            {parsed.lines.map((l) => {
              const fate = fates.get(l.line)!;
              const c = choices.get(l.line) ?? { kind: 'keep' as const };
              const isEntry = l.kind === 'entry';
              return [
                l.line === firstCutRow ? (
                  <tr key={`cut-${l.line}`} className="room-cut-row">
                    <td colSpan={4}>✂ Below this line the agent sees nothing: {cutPointersText(after.cut, afterCut.facts)}</td>
                  </tr>
                ) : null,
                <tr key={l.line} className={`${fate === 'cut' ? 'cut' : ''} ${c.kind !== 'keep' || moved.has(l.line) ? 'changed' : ''}`} data-line={l.line}>
                  <td className="muted small">{l.line}</td>
                  <td className={`raw ${fate === 'removed' ? 'dropped' : ''}`}>
                    {l.raw || ' '}
                    {(c.kind === 'shorten' || c.kind === 'move-hook') && (
                      <input
                        type="text"
                        aria-label={`New hook for line ${l.line}`}
                        value={c.hook}
                        onChange={(e) => set(l.line, { kind: c.kind, hook: e.target.value })}
                      />
                    )}
                  </td>
                  <td className="small">
                    {fate === 'removed' ? 'leaves the index' : fate === 'cut' ? 'below the cut' : fate === 'hidden' ? 'stripped' : 'loaded'}
                  </td>
                  <td>
                    {isEntry ? (
                      <>
                        <select
                          aria-label={`Choice for line ${l.line}`}
                          value={c.kind}
                          onChange={(e) => {
                            const kind = e.target.value as Choice['kind'];
                            if (kind === 'keep' || kind === 'drop') set(l.line, { kind });
                            else if (kind === 'merge') set(l.line, { kind, into: entries.find((x) => x.line !== l.line && x.file !== l.file)?.line ?? l.line });
                            else set(l.line, { kind, hook: shortenHook(l.hook, SHORT_HOOK) });
                          }}
                        >
                          {(Object.keys(CHOICE_LABEL) as Choice['kind'][]).map((k) => (
                            <option key={k} value={k}>
                              {CHOICE_LABEL[k]}
                            </option>
                          ))}
                        </select>
                        {c.kind === 'merge' && (
                          <select
                            aria-label={`Merge line ${l.line} into`}
                            value={c.into}
                            onChange={(e) => set(l.line, { kind: 'merge', into: Number(e.target.value) })}
                          >
                            {entries
                              .filter((x) => x.file !== l.file)
                              .map((x) => (
                                <option key={x.line} value={x.line}>
                                  {x.line}: {x.title} ({x.file})
                                </option>
                              ))}
                          </select>
                        )}
                      </>
                    ) : moved.has(l.line) ? (
                      <span className="small muted">moved</span>
                    ) : l.raw.trim() !== '' ? (
                      <>
                        {linkLines.has(l.line) && !picked.has(l.line) && (
                          <select
                            aria-label={`Choice for line ${l.line}`}
                            value={c.kind === 'drop' ? 'drop' : 'keep'}
                            onChange={(e) => set(l.line, { kind: e.target.value === 'drop' ? 'drop' : 'keep' })}
                          >
                            <option value="keep">{CHOICE_LABEL.keep}</option>
                            <option value="drop">Drop the line</option>
                          </select>
                        )}
                        {c.kind !== 'drop' && (
                          <label className="small">
                            <input
                              type="checkbox"
                              checked={picked.has(l.line)}
                              onChange={(e) => {
                                const next = new Set(picked);
                                if (e.target.checked) next.add(l.line);
                                else next.delete(l.line);
                                setPicked(next);
                              }}
                            />{' '}
                            move
                          </label>
                        )}
                      </>
                    ) : null}
                  </td>
                </tr>,
              ];
            })}
          </tbody>
        </table>
      </div>
      {picked.size > 0 && (
        <fieldset className="inline-form" aria-label="Move the picked lines into a new memory">
          <legend className="small">
            Move {picked.size} picked {picked.size === 1 ? 'line' : 'lines'} into a new memory, one pointer in {picked.size === 1 ? 'its' : 'their'} place
          </legend>
          <input aria-label="File of the new memory" value={form.file} onChange={(e) => setForm({ ...form, file: e.target.value })} />
          <input aria-label="Name of the new memory" placeholder="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
          <input
            aria-label="Description of the new memory"
            placeholder="One-line description (the new hook)"
            value={form.description}
            onChange={(e) => setForm({ ...form, description: e.target.value })}
          />
          <select aria-label="Type of the new memory" value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value as MemoryType })}>
            {MEMORY_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <button onClick={addMove} disabled={!form.name.trim() || !form.file.trim()}>
            Move them
          </button>
        </fieldset>
      )}
      <div className="actions">
        <button className="primary" disabled={busy || actions.length === 0 || preview.problems.length > 0} onClick={() => void apply()}>
          Apply {actions.length} {actions.length === 1 ? 'choice' : 'choices'}
        </button>
        <button onClick={onClose}>Cancel</button>
        {preview.merges.length > 0 && (
          <span className="muted small">
            {preview.merges.length} {preview.merges.length === 1 ? 'memory is' : 'memories are'} merged into another: the kept one gains its text and lists
            both.
            {scope === 'team' && ' One the sync server already holds is retired (its text emptied, which the next sync shares), not deleted.'}
          </span>
        )}
      </div>
    </section>
  );
}
