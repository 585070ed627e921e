/**
 * A project's personal sync (issue 18, item 5), in its Team sync tab: turn on syncing its
 * private memory with your other machines (under its repository's root commit or remote, or a name you give), its state,
 * sync now, what waits and why, and conflicts resolved in the merge editor.
 */
import { useEffect, useState } from 'react';
import type { PersonalProjectStatus } from '../../shared/contract/personal.js';
import { MergeEditor, type MergeWords } from '../components/MergeEditor.js';
import { ConflictTable, SyncStateBar, WaitingTable } from '../components/SyncParts.js';
import { when } from '../components/format.js';
import { useNav } from '../stores/nav.js';
import { personalHeadline, usePersonal } from '../stores/personal.js';

const WORDS: MergeWords = { prefix: '', theirs: "Your other machine's", changedBy: (who) => `changed on ${who}` };

function TurnOn({ status }: { status: PersonalProjectStatus }) {
  const busy = usePersonal((s) => s.busy);
  const error = usePersonal((s) => s.error);
  const [name, setName] = useState('');
  return (
    <div className="connect-form">
      {status.suggested ? (
        <p>
          Synced under its <strong>{status.suggested.detail}</strong>: the same repository on your other machines, wherever it is checked out, shares this
          memory.
        </p>
      ) : (
        <label>
          This project has no git commit or remote to recognise it by: give it a name, the same on each of your machines
          <input aria-label="Project name for personal sync" value={name} onChange={(e) => setName(e.target.value)} placeholder="my-notes" />
        </label>
      )}
      {error && (
        <div className="banner error" role="alert">
          {error}
        </div>
      )}
      <div className="actions">
        <button
          className="primary"
          disabled={busy || (!status.suggested && !name.trim())}
          onClick={() => void usePersonal.getState().enable(status.suggested ? undefined : name.trim())}
        >
          Sync my private memory with my other machines
        </button>
      </div>
    </div>
  );
}

/** See the file comment. */
export function PersonalSyncPanel({ dir }: { dir: string }) {
  const status = usePersonal((s) => (s.dir === dir ? s.project : null));
  const detail = usePersonal((s) => s.detail);
  const busy = usePersonal((s) => s.busy);
  const secrets = usePersonal((s) => s.secrets);
  useEffect(() => {
    void usePersonal.getState().open(dir);
  }, [dir]);
  if (!status) return null;
  return (
    <section aria-label="Personal sync" className="personal-sync">
      <h2>Personal sync</h2>
      <p className="muted small">
        Your private memory (everything here but <code>team/</code>), end-to-end encrypted, between your own machines.
      </p>
      {!status.account ? (
        <p>
          Connect this machine to your personal space first, in{' '}
          <button className="link" onClick={() => useNav.getState().go({ view: 'settings' })}>
            Settings → Personal sync
          </button>
          .
        </p>
      ) : !status.enabled ? (
        <TurnOn status={status} />
      ) : (
        <>
          <SyncStateBar
            state={status.state}
            headline={personalHeadline(status)}
            syncing={status.syncing}
            busy={busy}
            onSync={() => void usePersonal.getState().syncNow()}
            stop={{
              label: 'Turn off',
              title: 'Stop syncing this project; its files, history and conflicts stay',
              run: () => void usePersonal.getState().disable(),
            }}
          />
          <p className="small">
            Synced under {status.identity?.detail ?? '?'} · last pull {status.lastPullAt ? when(status.lastPullAt) : 'never'} · last push{' '}
            {status.lastPushAt ? when(status.lastPushAt) : 'never'} · {status.files} file(s) here
          </p>
          {status.error && (
            <div className="banner error" role="alert">
              {status.error.message}
            </div>
          )}
          {status.conflicts.length > 0 && (
            <ConflictTable
              label="Personal sync conflicts"
              prefix=""
              conflicts={status.conflicts}
              origin={(c) => `changed on ${c.serverUpdatedBy ?? 'another machine'} too · yours kept ${when(c.createdAt)}`}
              onResolve={(id) => void usePersonal.getState().openConflict(id)}
            />
          )}
          {detail && (
            <MergeEditor
              key={detail.conflict.id}
              detail={detail}
              busy={busy}
              words={WORDS}
              resolve={usePersonal.getState().resolve}
              close={usePersonal.getState().closeConflict}
              secrets={secrets}
              keepEditing={usePersonal.getState().keepEditing}
            />
          )}
          {status.waiting.length > 0 && <WaitingTable label="Not on your other machines yet" prefix="" waiting={status.waiting} />}
        </>
      )}
    </section>
  );
}
