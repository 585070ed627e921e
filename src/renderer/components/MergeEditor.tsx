/**
 * Resolve one sync conflict: the team's version (on disk now) and mine (kept when the pull
 * overwrote it) side by side, lines only one side has marked, and an editable result that
 * starts as the sync's own three-way merge (where the versions overlap, both sides' lines), or
 * both versions' lines in order when the base is not known. Take the team's, take mine, or
 * save the merge.
 */
import type { ConflictDetail } from '../../shared/contract/team.js';
import { useTeam } from '../stores/team.js';
import { when } from './format.js';
import { MergeView } from './MergeView.js';
import { Time } from './Time.js';

export function MergeEditor({ detail }: { detail: ConflictDetail }) {
  const { resolve, closeConflict } = useTeam.getState();
  const busy = useTeam((s) => s.busy);
  const { conflict } = detail;
  return (
    <MergeView
      label={`Resolve team/${conflict.key}`}
      heading={`team/${conflict.key}`}
      subtitle={
        <>
          changed on the server by {conflict.serverUpdatedBy ?? 'someone'}
          {conflict.serverUpdatedAt ? ` (${when(conflict.serverUpdatedAt)})` : ''} while your edit was not pushed yet · kept <Time at={conflict.createdAt} />
          {conflict.localRev ? ` · in history at ${conflict.localRev.slice(0, 7)}` : ''}
        </>
      }
      banner={!conflict.localIsText && <p className="banner warning">Your version is not UTF-8 text; it is shown decoded as well as possible.</p>}
      theirs={{ title: "The team's version (on disk now)", text: detail.theirs }}
      mine={{ title: 'Your version (kept)', text: detail.mine }}
      initial={detail.both}
      note="Starts as every line of both versions, in order. Edit it, then save: it is written (a history entry) and pushed."
      busy={busy}
      onClose={closeConflict}
      actions={[
        { label: "Take the team's", title: 'Keep what is on disk; your version stays in history', run: () => void resolve('server') },
        { label: 'Take mine', title: 'Write your version back and push it', run: () => void resolve('mine') },
        { label: 'Save merge', primary: true, run: (result) => void resolve('merge', result) },
      ]}
    />
  );
}
