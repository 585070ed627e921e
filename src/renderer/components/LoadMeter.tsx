/** How much of the index's limit is used: lines of 200, characters (UTF-16 units) of 25,000, entries cut. */
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../shared/limits.js';
import type { IndexSummary } from '../../shared/scan-types.js';

export function LoadMeter({ index, compact = false }: { index: IndexSummary; compact?: boolean }) {
  if (!index.exists) return <span className="muted">no MEMORY.md</span>;
  const lines = index.lines / INDEX_MAX_LINES;
  const chars = index.chars / INDEX_MAX_CHARS;
  const share = Math.max(lines, chars);
  const level = index.cut.length > 0 ? 'over' : share > 0.85 ? 'near' : 'ok';
  const label = `${index.lines}/${INDEX_MAX_LINES} lines, ${index.chars.toLocaleString('en-US')}/${INDEX_MAX_CHARS.toLocaleString('en-US')} characters${index.cut.length ? `, ${index.cut.length} cut` : ''}`;
  return (
    <span className={`meter ${level}`} title={label} aria-label={`Index load: ${label}`}>
      <span className="meter-bar">
        <span className="meter-fill" style={{ width: `${Math.min(100, share * 100)}%` }} />
      </span>
      {!compact && <span className="meter-text">{label}</span>}
      {compact && index.cut.length > 0 && <span className="badge error">{index.cut.length} cut</span>}
    </span>
  );
}
