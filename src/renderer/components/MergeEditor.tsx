/**
 * Resolve one sync conflict: the other side's version (the team's, or another of your machines':
 * on disk now, or — yours on disk after the Undo of keeping theirs — the sync's copy of it as last
 * synced) and mine (kept when the pull overwrote it) side by side, lines only one side
 * has marked, and an editable result that starts as the sync's own three-way merge (where the
 * versions overlap, both sides' lines), or both versions' lines in order when the base is not
 * known. Take theirs, take mine, or save the merge. Team sync and personal sync both use it.
 */
import type { ConflictDetail, ConflictResolution } from '../../shared/contract/team.js';
import type { SecretAsk } from '../stores/errors.js';
import { when } from './format.js';
import { MergeView } from './MergeView.js';
import { Time } from './Time.js';

/** How the editor names the file and the other side: `team/` and "the team's", or the private memory and "your other machine's". */
export interface MergeWords {
  prefix: string;
  /** Possessive, capitalised where it starts a title: "The team's". */
  theirs: string;
  /** Where their version came from: "on the server by ann". */
  changedBy: (who: string) => string;
}

/** The other side's title, by where main took it from (ConflictDetail `theirsFrom`). */
const THEIRS_FROM: Record<ConflictDetail['theirsFrom'], string> = {
  disk: 'on disk now',
  'last-synced': 'as last synced; yours is on disk',
  lost: 'no longer saved here: sync first; shown is yours, on disk',
};

export const TEAM_MERGE_WORDS: MergeWords = { prefix: 'team/', theirs: "The team's", changedBy: (who) => `changed on the server by ${who}` };

export function MergeEditor({
  detail,
  busy,
  words = TEAM_MERGE_WORDS,
  resolve,
  close,
  secrets,
  keepEditing,
}: {
  detail: ConflictDetail;
  busy: boolean;
  words?: MergeWords;
  resolve: (take: ConflictResolution, text?: string, allowSecrets?: string[]) => Promise<void>;
  close: () => void;
  /** A merge refused for a secret, asked before saving it anyway (the store's `secrets`). */
  secrets: SecretAsk | null;
  keepEditing: () => void;
}) {
  const { conflict } = detail;
  return (
    <MergeView
      label={`Resolve ${words.prefix}${conflict.key}`}
      heading={`${words.prefix}${conflict.key}`}
      subtitle={
        <>
          {words.changedBy(conflict.serverUpdatedBy ?? 'someone')}
          {conflict.serverUpdatedAt ? ` (${when(conflict.serverUpdatedAt)})` : ''} while your edit was not pushed yet · kept <Time at={conflict.createdAt} />
          {detail.keptIn && (
            <>
              {' '}
              · in History with “{detail.keptIn.summary}” (<Time at={detail.keptIn.time} />)
            </>
          )}
        </>
      }
      banner={!conflict.localIsText && <p className="banner warning">Your version is not UTF-8 text; it is shown decoded as well as possible.</p>}
      theirs={{
        // Where main took their side from (conflictDetail's theirsFrom): one rule, said here in words.
        title: `${words.theirs} version (${THEIRS_FROM[detail.theirsFrom]})`,
        text: detail.theirs,
      }}
      mine={{ title: 'Your version (kept)', text: detail.mine }}
      initial={detail.both}
      overlaps={detail.bothOverlaps}
      note="Starts as every line of both versions, in order. Edit it, then save: it is written (a history entry) and pushed."
      busy={busy}
      onClose={close}
      secrets={secrets && { refusal: secrets, saveAnyway: (result) => void resolve('merge', result, secrets.allowSecrets), back: keepEditing }}
      actions={[
        {
          label: `Take ${words.theirs.charAt(0).toLowerCase()}${words.theirs.slice(1)}`,
          title: 'Keep their version; yours stays in history',
          run: () => void resolve('server'),
        },
        { label: 'Take mine', title: 'Write your version back and push it', run: () => void resolve('mine') },
        { label: 'Save merge', primary: true, run: (result) => void resolve('merge', result) },
      ]}
    />
  );
}
