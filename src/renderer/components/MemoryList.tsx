/** The memory list: virtualised, so ten thousand rows scroll as smoothly as ten. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import type { MemoryRow } from '../stores/project.js';
import { count } from './format.js';

const ROW_HEIGHT = 56;

/**
 * One row. Memoised: while scrolling, rows that stay in view keep their props (a row's offset
 * never changes), so each frame renders only the rows that just came into view.
 */
const MemoryRowView = memo(function MemoryRowView({ row, start, selected, onOpen }: { row: MemoryRow; start: number; selected: boolean; onOpen: (row: MemoryRow) => void }) {
  return (
    <div
      role="option"
      aria-selected={selected}
      className={`memory-row${selected ? ' selected' : ''}`}
      style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${start}px)` }}
      onClick={() => onOpen(row)}
      data-file={row.file}
    >
      <div className="memory-row-top">
        <span className={`chip type-${row.type ?? 'none'}`}>{row.type ?? 'no type'}</span>
        {row.scope === 'team' && <span className="chip team">team</span>}
        <span className="memory-name">{row.name}</span>
        {row.indexState === 'cut' && (
          <span className="badge error" title="Its pointer is past the MEMORY.md cut: the agent never sees it">
            cut
          </span>
        )}
        {row.indexState === 'unlisted' && (
          <span className="badge warning" title="Not listed in MEMORY.md">
            unlisted
          </span>
        )}
        {row.problems > 0 && <span className="badge warning">{count(row.problems, 'problem')}</span>}
      </div>
      <div className="memory-desc muted">{row.description || <em>no description</em>}</div>
    </div>
  );
});

export function MemoryList({ rows, selected, onOpen }: { rows: MemoryRow[]; selected: string | null; onOpen: (row: MemoryRow) => void }) {
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const hasRows = rows.length > 0;
  useEffect(() => {
    // Marks the first frame painted with rows (after layout), for devtools and the bench.
    if (hasRows) requestAnimationFrame(() => performance.mark('memdir:memory-list-painted'));
  }, [hasRows]);
  return (
    <div ref={parent} className="memory-list" role="listbox" aria-label="Memories" tabIndex={0} data-testid="memory-list">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          const key = `${row.scope}/${row.file}`;
          return <MemoryRowView key={key} row={row} start={item.start} selected={selected === key} onOpen={onOpen} />;
        })}
      </div>
    </div>
  );
}
