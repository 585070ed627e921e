/** The dashboard's Team column: local only, or the sync state of a connected project (the dashboard loads the overview). */
import { teamCell, useTeam } from '../stores/team.js';

export function TeamCell({ dir, hasTeamDir }: { dir: string; hasTeamDir: boolean }) {
  const row = useTeam((s) => s.overview[dir]);
  const cell = teamCell(row, hasTeamDir);
  return (
    <span className="team-cell" title={row?.server ? `${row.team} at ${row.server}` : undefined}>
      <span className={cell.tone === 'ok' ? 'ok-note' : cell.tone === 'warning' ? 'badge warning' : cell.tone === 'error' ? 'badge error' : 'muted'}>
        {cell.text}
      </span>
      {cell.detail && <div className="muted small">{cell.detail}</div>}
    </span>
  );
}
