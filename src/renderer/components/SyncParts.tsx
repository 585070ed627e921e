/**
 * The pieces team sync and personal sync show alike: the state bar with "Sync now", the
 * conflicts a pull kept, and the files that wait. Each caller passes its own words and where its
 * files live (`team/` or the private memory).
 */
import type { ReactNode } from 'react';
import type { SyncStateName, TeamConflict, WaitingItem } from '../../shared/contract/team.js';
import { waitingItemName } from '../../shared/sync-waiting.js';
import { waitingLabel } from '../stores/team.js';
import { Breakable } from './Breakable.js';

/** The badge's tone for a sync state: in step, broken, neutral (not connected, not synced yet), or waiting on something. */
export function syncTone(state: SyncStateName): string {
  if (state === 'synced') return 'ok';
  if (state === 'error') return 'error';
  return state === 'not-connected' || state === 'never-synced' ? '' : 'warning';
}

/** The state badge, the headline, "Sync now" and the button that stops syncing. */
export function SyncStateBar({
  state,
  headline,
  syncing,
  busy,
  onSync,
  stop,
}: {
  state: SyncStateName;
  headline: string;
  syncing: boolean;
  busy: boolean;
  onSync: () => void;
  stop: { label: string; title: string; run: () => void };
}) {
  return (
    <div className="toolbar">
      <span className={`badge ${syncTone(state)}`} data-state={state}>
        {state}
      </span>
      <strong>{headline}</strong>
      <span className="spacer" />
      <button className="primary" onClick={onSync} disabled={busy || syncing}>
        {syncing ? 'Syncing…' : 'Sync now'}
      </button>
      <button onClick={stop.run} disabled={busy} title={stop.title}>
        {stop.label}
      </button>
    </div>
  );
}

/** The conflicts to resolve, each opening the merge editor. */
export function ConflictTable({
  label,
  prefix,
  conflicts,
  origin,
  onResolve,
}: {
  label: string;
  /** Where the files live, before their key: `team/` or nothing. */
  prefix: string;
  conflicts: TeamConflict[];
  /** Where the other version came from and when mine was kept. */
  origin: (conflict: TeamConflict) => ReactNode;
  onResolve: (id: string) => void;
}) {
  return (
    <table className="grid" aria-label={label}>
      <tbody>
        {conflicts.map((c) => (
          <tr key={c.id} data-key={c.key}>
            <td>
              <code className="file-key">
                <Breakable text={`${prefix}${c.key}`} />
              </code>
            </td>
            <td className="small">{origin(c)}</td>
            <td>
              <button onClick={() => onResolve(c.id)}>Resolve…</button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The files not synced yet, each with why. */
export function WaitingTable({ label, prefix, waiting }: { label: string; prefix: string; waiting: WaitingItem[] }) {
  return (
    <table className="grid" aria-label={label}>
      <tbody>
        {waiting.map((w) => (
          <tr key={w.key} data-reason={w.reason}>
            <td>
              <code className="file-key">
                <Breakable text={waitingItemName(w, prefix)} />
              </code>
            </td>
            <td>
              <span className={`badge ${w.reason === 'pending' ? '' : w.reason === 'secret' || w.reason === 'symlink' ? 'error' : 'warning'}`}>
                {waitingLabel(w.reason)}
              </span>
            </td>
            <td className="small">{w.detail}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
