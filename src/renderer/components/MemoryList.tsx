/**
 * The memory list: virtualised, so ten thousand rows scroll as smoothly as ten. Keyboard first:
 * arrows move, Enter opens, Space (or Ctrl/Cmd-click, or the row's box) picks memories for a
 * bulk action, Shift extends the pick. The open memory is `aria-current`; picked ones are selected.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, type RefObject, memo, useCallback, useEffect, useRef, useState } from 'react';
import { Badge } from './Badge.js';
import { type MemoryRow, rowKey } from '../stores/project.js';
import { formatBytes, plural } from '../../shared/size-text.js';

const ROW_HEIGHT = 56;

function rowId(key: string): string {
  return `memory-row-${key.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.codePointAt(0)!.toString(16)}`)}`;
}

interface RowProps {
  row: MemoryRow;
  start: number;
  open: boolean;
  picked: boolean;
  active: boolean;
  draft: boolean;
  onOpen: (row: MemoryRow) => void;
  onPick: (row: MemoryRow, range: boolean) => void;
}

/**
 * One row. Memoised: while scrolling, rows that stay in view keep their props (a row's offset
 * never changes), so each frame renders only the rows that just came into view.
 */
const MemoryRowView = memo(function MemoryRowView({ row, start, open, picked, active, draft, onOpen, onPick }: RowProps) {
  const key = rowKey(row);
  return (
    <div
      id={rowId(key)}
      role="option"
      aria-selected={picked}
      aria-current={open ? 'true' : undefined}
      aria-label={`${row.name}${row.scope === 'team' ? ', team' : ''}${draft ? ', unsaved draft' : ''}`}
      // Its second line — type, description, each badge and its reason — is what a screen reader says after the name.
      aria-describedby={`${rowId(key)}-about`}
      className={`memory-row${open ? ' selected' : ''}${picked ? ' picked' : ''}${active ? ' active' : ''}`}
      style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${start}px)` }}
      onClick={(e) => (e.metaKey || e.ctrlKey || e.shiftKey ? onPick(row, e.shiftKey) : onOpen(row))}
      data-file={row.file}
      data-scope={row.scope}
    >
      <div className="memory-row-top">
        <span
          className={`pick${picked ? ' on' : ''}`}
          aria-hidden="true"
          onClick={(e) => {
            e.stopPropagation();
            onPick(row, e.shiftKey);
          }}
        >
          {picked ? '☑' : '☐'}
        </span>
        {row.scope === 'team' && <span className="chip team">team</span>}
        <span className="memory-name">{row.name}</span>
      </div>
      {/* The second line: what kind of memory, its description (the part that gives way), then
          its badges at the right, always whole — the title above has the row's width to itself
          (after a team memory's "team": on this line it left the description "De…" at 1024 px). */}
      <div className="memory-row-bottom" id={`${rowId(key)}-about`}>
        <span className={`chip type-${row.type ?? 'none'}`}>{row.type ?? 'no type'}</span>
        <span className="memory-desc muted">{row.description || <em>no description</em>}</span>
        {draft && (
          <Badge tone="draft" why="You have unsaved changes to this memory, kept as a draft">
            draft
          </Badge>
        )}
        {row.indexState === 'cut' && (
          <Badge tone="error" why="Its pointer is past the MEMORY.md cut: the agent never sees it">
            cut
          </Badge>
        )}
        {row.indexState === 'unlisted' && (
          <Badge tone="warning" why="Not listed in MEMORY.md">
            unlisted
          </Badge>
        )}
        {row.indexState === 'no-index' && (
          <Badge why="Claude Code syncs this project's memory with its memory stores and then loads no MEMORY.md: the agent is offered this memory by its description">
            no index
          </Badge>
        )}
        {row.tooLarge && (
          <Badge tone="error" why="Larger than a memory may be (1 MB): Memdir does not open it, Claude Code still offers it to recall">
            too large: {formatBytes(row.bytes)}
          </Badge>
        )}
        {row.problems > 0 && <span className="badge warning">{plural(row.problems, 'problem')}</span>}
      </div>
    </div>
  );
});

export interface MemoryListProps {
  rows: MemoryRow[];
  /** The open memory's key (rowKey), or null. */
  open: string | null;
  picked: ReadonlySet<string>;
  drafts: ReadonlySet<string>;
  onOpen: (row: MemoryRow, how: 'pointer' | 'keyboard') => void;
  onPick: (row: MemoryRow, range: boolean) => void;
  /** The list element, so views can put focus back on it. */
  listRef?: RefObject<HTMLDivElement | null>;
}

export function MemoryList({ rows, open, picked, drafts, onOpen, onPick, listRef }: MemoryListProps) {
  const own = useRef<HTMLDivElement>(null);
  const parent = listRef ?? own;
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const [active, setActive] = useState<string | null>(null);
  const hasRows = rows.length > 0;
  useEffect(() => {
    // Marks the first frame painted with rows (after layout), for devtools and the bench.
    if (hasRows) requestAnimationFrame(() => performance.mark('memdir:memory-list-painted'));
  }, [hasRows]);
  const openByPointer = useCallback((r: MemoryRow) => onOpen(r, 'pointer'), [onOpen]);
  const activeIndex = Math.max(
    0,
    rows.findIndex((r) => rowKey(r) === (active ?? open)),
  );
  const activeRow = rows[activeIndex];

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!activeRow) return;
    const move = (index: number) => {
      const target = rows[Math.max(0, Math.min(rows.length - 1, index))]!;
      setActive(rowKey(target));
      virtualizer.scrollToIndex(rows.indexOf(target));
      if (e.shiftKey) onPick(target, true);
    };
    if (e.key === 'ArrowDown') move(activeIndex + 1);
    else if (e.key === 'ArrowUp') move(activeIndex - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(rows.length - 1);
    else if (e.key === 'PageDown') move(activeIndex + 8);
    else if (e.key === 'PageUp') move(activeIndex - 8);
    else if (e.key === 'Enter') onOpen(activeRow, 'keyboard');
    else if (e.key === ' ') onPick(activeRow, e.shiftKey);
    else return;
    e.preventDefault();
  };

  return (
    <div
      ref={parent}
      className="memory-list"
      role="listbox"
      aria-label="Memories"
      aria-multiselectable="true"
      aria-activedescendant={activeRow ? rowId(rowKey(activeRow)) : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
      data-testid="memory-list"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          const key = rowKey(row);
          return (
            <MemoryRowView
              key={key}
              row={row}
              start={item.start}
              open={open === key}
              picked={picked.has(key)}
              active={activeRow === row}
              draft={drafts.has(key)}
              onOpen={openByPointer}
              onPick={onPick}
            />
          );
        })}
      </div>
    </div>
  );
}
