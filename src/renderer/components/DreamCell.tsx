/** The dashboard's Dream column: when the project last dreamt, and when it may dream next (the dashboard loads the overview). */
import { ago } from './format.js';
import { dreamCell, useDream } from '../stores/dream.js';

export function DreamCell({ dir }: { dir: string }) {
  const row = useDream((s) => s.overview[dir]);
  const cell = dreamCell(row);
  const last = row?.lastDreamAt ?? row?.lastConsolidatedAt ?? null;
  return (
    <span className="dream-cell" title={row?.disabled ?? row?.waitingFor ?? undefined}>
      <span className={cell.tone === 'ok' ? 'ok-note' : cell.tone === 'warning' ? 'badge warning' : 'muted'}>{cell.text}</span>
      <div className="muted small">{last ? `last ${ago(Date.parse(last))}` : 'never dreamt'}</div>
    </span>
  );
}
