/**
 * Drag MEMORY.md's lines into a new order — or move the focused line with Alt+↑/↓ — with the cut
 * line drawn where Claude Code would cut for the order shown, while dragging too.
 */
import { Fragment, useMemo, useState } from 'react';
import type { Scope } from '../../shared/memory-types.js';
import { plural } from '../../shared/size-text.js';
import { cutOf, lineLabel, moveLine, useIndexOrder } from '../stores/index-order.js';

/** Where the line at `k` shows while the line at `from` is held over position `to`. */
export function shownPosition(k: number, from: number, to: number): number {
  if (k === from) return to;
  if (from < to && k > from && k <= to) return k - 1;
  if (to < from && k >= to && k < from) return k + 1;
  return k;
}

export function IndexReorder({ scope, onDone }: { scope: Scope; onDone: () => void }) {
  const { index, error, saving } = useIndexOrder();
  const { move, save, cancel } = useIndexOrder.getState();
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  // While dragging, the cut is shown for the order the drop would make. The lines are not moved
  // in the page meanwhile (that would end the browser's drag): CSS `order` shows them moved.
  const shown = useMemo(() => (index && dragging !== null && over !== null ? moveLine(index, dragging, over) : index), [index, dragging, over]);
  const cut = useMemo(() => (shown ? cutOf(shown) : { firstCut: null, cut: [], fate: [] }), [shown]);
  if (!index || !shown)
    return error ? (
      // A read that failed is no dead end: the way back is here.
      <div className="banner error" role="alert">
        {error}{' '}
        <button
          onClick={() => {
            cancel();
            onDone();
          }}
        >
          Back
        </button>
      </div>
    ) : (
      <p className="muted">Reading MEMORY.md…</p>
    );
  const at = (k: number) => (dragging !== null && over !== null ? shownPosition(k, dragging, over) : k);
  return (
    <section aria-label={`Reorder ${scope === 'team' ? 'team ' : ''}MEMORY.md`}>
      <p className="muted small">
        Drag lines (or focus one and press Alt+↑ / Alt+↓). The agent reads from the top:{' '}
        {cut.cut.length === 0 ? 'in this order, everything reaches it.' : `in this order, ${plural(cut.cut.length, 'pointer')} fall past the cut.`}
      </p>
      {error && (
        <div className="banner error" role="alert">
          {error}
        </div>
      )}
      <ol className="index-reorder" aria-label="MEMORY.md lines in their new order">
        {index.lines.map((line, k) => {
          const i = at(k);
          const isCut = cut.fate[i] === 'cut';
          return (
            <Fragment key={`${k}-${line.raw}`}>
              {cut.firstCut === i && (
                <li className="cut-line" role="separator" style={{ order: i }}>
                  ✂ The agent never sees anything below this line
                </li>
              )}
              <li
                style={{ order: i }}
                draggable
                tabIndex={0}
                aria-label={`${lineLabel(line)}, line ${i + 1}${isCut ? ', past the cut' : ''}`}
                className={`${isCut ? 'cut' : ''}${dragging === k ? ' dragging' : ''}`}
                onDragStart={(e) => {
                  e.dataTransfer.effectAllowed = 'move';
                  e.dataTransfer.setData('text/plain', String(k));
                  setDragging(k);
                  setOver(k);
                }}
                onDragEnter={(e) => {
                  // Accepting the drop already on entering: the line under the pointer changes as lines shift.
                  e.preventDefault();
                  e.dataTransfer.dropEffect = 'move';
                }}
                onDragOver={(e) => {
                  e.preventDefault();
                  e.dataTransfer.dropEffect = 'move';
                  if (dragging !== null && over !== i) setOver(i);
                }}
                onDrop={(e) => {
                  e.preventDefault();
                  if (dragging !== null && over !== null) move(dragging, over);
                  setDragging(null);
                  setOver(null);
                }}
                onDragEnd={() => {
                  setDragging(null);
                  setOver(null);
                }}
                onKeyDown={(e) => {
                  if (!e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
                  e.preventDefault();
                  const to = Math.max(0, Math.min(index.lines.length - 1, e.key === 'ArrowUp' ? k - 1 : k + 1));
                  const list = e.currentTarget.parentElement;
                  move(k, to);
                  requestAnimationFrame(() => (list?.children[to] as HTMLElement | undefined)?.focus());
                }}
              >
                <span aria-hidden="true">⠿</span>
                <code>{line.raw || ' '}</code>
                <span className="spacer" />
                <button type="button" className="small" aria-label={`Move ${lineLabel(line)} up`} disabled={k === 0} onClick={() => move(k, k - 1)}>
                  ↑
                </button>
                <button
                  type="button"
                  className="small"
                  aria-label={`Move ${lineLabel(line)} down`}
                  disabled={k === index.lines.length - 1}
                  onClick={() => move(k, k + 1)}
                >
                  ↓
                </button>
              </li>
            </Fragment>
          );
        })}
      </ol>
      <div className="actions">
        <button className="primary" disabled={saving} onClick={() => void save().then((ok) => ok && onDone())}>
          Save this order
        </button>
        <button
          onClick={() => {
            cancel();
            onDone();
          }}
        >
          Cancel
        </button>
      </div>
    </section>
  );
}
