/**
 * How much of the index's limit is used (R-INDEX): lines of 200 and characters (UTF-16 units) of
 * 25,000, each drawn against its limit, and where the cut falls. Past the cut is past the cut —
 * a line of prose as much as a pointer — so the meter is red whenever anything is cut. Its badge
 * counts the memories the agent never sees (index-cut.ts), not the pointer lines below the cut.
 */
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../shared/limits.js';
import { cutFactsText } from '../../shared/index-cut.js';
import type { IndexSummary } from '../../shared/scan-types.js';
import { formatCount as fmt, plural } from '../../shared/size-text.js';
import './charts.css';

/** One measure against its limit: the part past the limit drawn apart. */
function Bar({ label, value, limit, unit }: { label: string; value: number; limit: number; unit: string }) {
  const scale = Math.max(value, limit);
  const within = (Math.min(value, limit) / scale) * 100;
  const over = value > limit ? ((value - limit) / scale) * 100 : 0;
  const level = value > limit ? 'over' : value / limit > 0.85 ? 'near' : 'ok';
  return (
    <div
      className={`gauge-row ${level}`}
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={limit}
      aria-valuenow={value}
      aria-valuetext={`${fmt(value)} of ${fmt(limit)} ${unit}`}
    >
      <span className="gauge-label">{label}</span>
      <span className="gauge-track">
        <span className="gauge-fill" style={{ width: `${within}%` }} />
        {over > 0 && <span className="gauge-over" style={{ width: `${over}%` }} />}
        <span className="gauge-limit" style={{ left: `${(limit / scale) * 100}%` }} title={`limit: ${fmt(limit)} ${unit}`} />
      </span>
      <span className="gauge-value">
        {fmt(value)} / {fmt(limit)} {unit}
      </span>
    </div>
  );
}

/**
 * `cutMemories`: the number the compact badge shows, when it is not this index's own (the
 * dashboard's row counts the project's memories past the cut, private and team, as its memory list does).
 * `off`: why Claude Code loads no index at all, or null: `why` in full (auto memory off,
 * settings-text.ts; memory-store mode, claude-code-stores.ts) and `label`, the few words the gauge shows.
 */
export function LoadMeter({
  index,
  compact = false,
  cutMemories,
  off = null,
}: {
  index: Omit<IndexSummary, 'loaded'>;
  compact?: boolean;
  cutMemories?: number;
  off?: { why: string; label: string } | null;
}) {
  if (!index.exists) return <span className="muted">no MEMORY.md</span>;
  const lines = index.lines / INDEX_MAX_LINES;
  const chars = index.chars / INDEX_MAX_CHARS;
  const share = Math.max(lines, chars);
  const truncated = index.firstCutLine !== null;
  const level = truncated ? 'over' : share > 0.85 ? 'near' : 'ok';
  // What is past the cut, in the words every place uses (index-cut.ts): memories, then pointers to missing files.
  const facts = cutFactsText(index);
  const where = truncated ? `cut from line ${index.firstCutLine}${facts ? ` (${facts})` : ''}` : 'nothing cut';
  const label = `${index.lines}/${INDEX_MAX_LINES} lines, ${fmt(index.chars)}/${fmt(INDEX_MAX_CHARS)} characters, ${where}`;
  if (compact) {
    return (
      <span className={`meter ${level}`} title={label} aria-label={`Index load: ${label}`}>
        <span className="meter-bar">
          <span className="meter-fill" style={{ width: `${Math.min(100, share * 100)}%` }} />
        </span>
        <span className="meter-text small">
          {index.lines}/{INDEX_MAX_LINES} lines · {fmt(index.chars)}/{fmt(INDEX_MAX_CHARS)}
        </span>
        {(truncated || (cutMemories ?? 0) > 0) && (
          <span
            className="badge error"
            title={`${cutMemories !== undefined ? `${plural(cutMemories, 'memory', 'memories')} past the cut, private and team. ` : ''}MEMORY.md: ${where}`}
          >
            {(cutMemories ?? index.cutMemories.length) > 0 ? `${cutMemories ?? index.cutMemories.length} cut` : 'cut'}
          </span>
        )}
      </span>
    );
  }
  return (
    <div className={`gauge ${level}`} aria-label={`Index load: ${label}`}>
      <Bar label="Lines" value={index.lines} limit={INDEX_MAX_LINES} unit="lines" />
      <Bar label="Characters" value={index.chars} limit={INDEX_MAX_CHARS} unit="characters" />
      {off ? (
        <span className="gauge-cut over" title={off.why}>
          Not loaded: {off.label}
        </span>
      ) : (
        <span className={`gauge-cut ${truncated ? 'over' : 'ok'}`}>
          {truncated ? `✂ ${where[0]!.toUpperCase()}${where.slice(1)}: ${index.reason}` : 'Everything reaches the agent'}
        </span>
      )}
    </div>
  );
}
