/**
 * A project's Team sync (SPEC §6, issue 7): connect `memory/team/` to a sync server; the sync
 * state with the last pull and push, what waits to be uploaded and why, and errors; the
 * conflicts a pull kept (resolved in the side-by-side merge editor); and moving memories
 * between private and team (R-TYPES: a `user` memory never goes to the team).
 */
import { useEffect, useState } from 'react';
import type { TeamStatus } from '../../shared/contract/team.js';
import { Breakable } from '../components/Breakable.js';
import { type CardColumn, CardRow, CardTable } from '../components/CardTable.js';
import { MergeEditor } from '../components/MergeEditor.js';
import { type ConnectWords, SyncConnectForm, useConnectFields } from '../components/SyncConnectForm.js';
import { ConflictTable, SyncStateBar, WaitingTable } from '../components/SyncParts.js';
import { PersonalSyncPanel } from './PersonalSyncPanel.js';
import { when } from '../components/format.js';
import { Time } from '../components/Time.js';
import { stateHeadline, useTeam } from '../stores/team.js';
import { useNav } from '../stores/nav.js';

const CONNECT_WORDS: ConnectWords = {
  form: 'Connect to a sync server',
  serverLabel: 'Server URL',
  token: 'Token',
  tokenLabel: 'Token',
  http: 'Allow plain http to another machine (the token travels unencrypted)',
};

function ConnectForm() {
  const busy = useTeam((s) => s.busy);
  const error = useTeam((s) => s.error);
  const overruledBy = useTeam((s) => s.connectOverruledBy);
  const fields = useConnectFields();
  const [team, setTeam] = useState('');
  const { server, token, allowHttp } = fields;
  return (
    <SyncConnectForm
      words={CONNECT_WORDS}
      fields={fields}
      intro={
        <p>
          Share this project&apos;s <code>memory/team/</code> with your team through a Memdir sync server. Your team admin runs <code>memdir server</code> and
          gives you a token (<code>memdir server admin issue-token</code>).
        </p>
      }
      afterServer={
        <label>
          Team
          <input aria-label="Team" placeholder="platform-team" value={team} onChange={(e) => setTeam(e.target.value)} required />
        </label>
      }
      footer={
        <p className="muted small">
          The token is checked with the server, then kept in Memdir&apos;s credential store (encrypted by your OS keychain in the desktop app), never in
          settings.
        </p>
      }
      busy={busy}
      error={error}
      overruledBy={overruledBy}
      disabled={busy || !server.trim() || !team.trim() || !token.trim()}
      problem={!server.trim() || !team.trim() || !token.trim() ? "Give the server, the team and this machine's token." : null}
      submitLabel="Connect"
      onSubmit={(override) =>
        void useTeam
          .getState()
          .connect({ server: server.trim(), team: team.trim(), token: token.trim(), ...(allowHttp || override?.allowHttp ? { allowHttp: true } : {}) })
          .then((ok) => ok && fields.setToken(''))
      }
    />
  );
}

function StatusPanel({ status }: { status: TeamStatus }) {
  const busy = useTeam((s) => s.busy);
  const c = status.connection!;
  return (
    <section aria-label="Sync state">
      <SyncStateBar
        state={status.state}
        headline={stateHeadline(status)}
        syncing={status.syncing}
        busy={busy}
        onSync={() => void useTeam.getState().syncNow()}
        stop={{
          label: 'Disconnect',
          title: 'Stop syncing; files, history and conflicts stay; the stored token is deleted',
          run: () => void useTeam.getState().disconnect(),
        }}
      />
      <dl className="facts">
        <dt>Server</dt>
        <dd>
          {c.server} · team <strong>{c.team}</strong> · you are <strong>{c.member}</strong> (token {c.tokenId}
          {c.tokenStored ? (c.tokenEncrypted ? ', encrypted at rest' : ', stored unencrypted, mode 0600') : ', not stored here'})
        </dd>
        <dt>Last pull</dt>
        <dd>
          <Time at={status.lastPullAt} />
        </dd>
        <dt>Last push</dt>
        <dd>
          <Time at={status.lastPushAt} />
        </dd>
        <dt>Last check</dt>
        <dd>
          {status.lastCheckAt ? <Time at={status.lastCheckAt} /> : '—'}
          {status.nextSyncAt ? ` · next by ${when(status.nextSyncAt)}` : ''} · every {c.pullIntervalSec} s, and a moment after every change here
        </dd>
        <dt>Team files</dt>
        <dd>
          {status.files} here{status.version !== null ? ` · server version ${status.version}` : ''}
        </dd>
      </dl>
      {status.error && (
        <div className="banner error" role="alert">
          {status.error.message}
        </div>
      )}
    </section>
  );
}

function Conflicts({ status }: { status: TeamStatus }) {
  const detail = useTeam((s) => s.detail);
  const busy = useTeam((s) => s.busy);
  const secrets = useTeam((s) => s.secrets);
  if (status.conflicts.length === 0 && !detail) return null;
  return (
    <section aria-label="Conflicts">
      <h2>Conflicts</h2>
      <p className="muted small">
        A pull brought the team&apos;s newer version of these files while you had unpushed edits. The team&apos;s version is on disk; yours is kept here and in
        history until you choose.
      </p>
      <ConflictTable
        label="Conflicts to resolve"
        prefix="team/"
        conflicts={status.conflicts}
        origin={(c) => (
          <>
            {c.serverUpdatedBy ? `changed by ${c.serverUpdatedBy}` : 'changed on the server'} · kept <Time at={c.createdAt} />
          </>
        )}
        onResolve={(id) => void useTeam.getState().openConflict(id)}
      />
      {detail && (
        <MergeEditor
          key={detail.conflict.id}
          detail={detail}
          busy={busy}
          resolve={useTeam.getState().resolve}
          close={useTeam.getState().closeConflict}
          secrets={secrets}
          keepEditing={useTeam.getState().keepEditing}
        />
      )}
    </section>
  );
}

function Waiting({ status }: { status: TeamStatus }) {
  if (status.waiting.length === 0) return <p className="ok-note">Everything here is on the server.</p>;
  return (
    <section aria-label="Waiting">
      <h2>Not on the server yet</h2>
      <WaitingTable label="Waiting files" prefix="team/" waiting={status.waiting} />
      {status.waiting.some((w) => w.reason === 'secret') && (
        <p className="small">
          Files holding a secret are never uploaded. Redact or allow the finding in{' '}
          <button className="link" onClick={() => useNav.getState().go({ view: 'alerts' })}>
            Alerts
          </button>
          .
        </p>
      )}
    </section>
  );
}

/** The memories that can move: the file heads its card. */
const MOVE_COLUMNS: CardColumn[] = [{ label: 'Memory', bare: true }, { label: 'Type' }, { label: 'Suggested' }, { label: 'Move', bare: true }];

function Move({ status }: { status: TeamStatus }) {
  const busy = useTeam((s) => s.busy);
  const [open, setOpen] = useState(false);
  const suggested = status.movable.filter((m) => m.suggested).length;
  return (
    <section aria-label="Private and team">
      <h2>
        <button className="link" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? '▾' : '▸'} Move memories between private and team
        </button>
        {suggested > 0 && <span className="badge">{suggested} suggested</span>}
      </h2>
      {open && (
        <CardTable label="Movable memories" columns={MOVE_COLUMNS}>
          {status.movable.map((m, i) => (
            <CardRow key={`${m.scope}:${m.file}`}>
              <td>
                <code>
                  <Breakable text={m.scope === 'team' ? `team/${m.file}` : m.file} />
                </code>{' '}
                <span className="muted small">{m.name}</span>
              </td>
              <td>{m.type && <span className={`chip type-${m.type}`}>{m.type}</span>}</td>
              <td className="small">{m.suggested ? (m.scope === 'private' ? 'usually shared with the team' : 'usually private') : ''}</td>
              <td>
                <button
                  onClick={() => void useTeam.getState().move(m.file, m.scope === 'team' ? 'private' : 'team')}
                  disabled={busy || m.refusal !== null}
                  aria-describedby={m.refusal ? `move-refusal-${i}` : undefined}
                >
                  {m.scope === 'team' ? 'Move to private' : 'Move to team'}
                </button>
                {/* Said, not only in a title: a disabled button takes no focus, so a keyboard user never saw why. */}
                {m.refusal && (
                  <div id={`move-refusal-${i}`} className="muted small">
                    <Breakable text={m.refusal} />
                  </div>
                )}
              </td>
            </CardRow>
          ))}
        </CardTable>
      )}
    </section>
  );
}

export function TeamSyncTab({ dir }: { dir: string }) {
  const status = useTeam((s) => (s.dir === dir ? s.project : null));
  const error = useTeam((s) => s.error);
  useEffect(() => {
    void useTeam.getState().open(dir);
  }, [dir]);
  if (!status) return error ? <div className="banner error">{error}</div> : <p className="muted">Loading…</p>;
  return (
    <section className="team-sync" aria-label="Team sync">
      <header className="view-head">
        <h2>Team sync</h2>
        <span className="muted small" title="Team memory directory">
          {status.teamDir}
        </span>
      </header>
      {status.connection ? (
        <>
          <StatusPanel status={status} />
          <Conflicts status={status} />
          <Waiting status={status} />
          {status.resolved.length > 0 && (
            <p className="muted small">
              Resolved lately:{' '}
              {status.resolved
                .map((c) => `team/${c.key} (${c.resolution === 'server' ? "took the team's" : c.resolution === 'mine' ? 'took mine' : 'merged'})`)
                .join(', ')}
              .
            </p>
          )}
        </>
      ) : (
        <ConnectForm />
      )}
      <Move status={status} />
      <PersonalSyncPanel dir={dir} />
    </section>
  );
}
