/**
 * Settings → Personal sync (issue 18, item 5): connect this machine to your personal space on a
 * sync server. What losing the passphrase means is on screen before the passphrase is typed; when
 * the space has none yet, it is asked for a second time with the warning to confirm before it is
 * set. Connected: the account, the key fingerprint to compare between machines, the synced
 * projects (each links to its Team sync tab, where personal sync is turned on per project).
 */
import { useEffect, useState } from 'react';
import { connectProblem, usePersonal } from '../stores/personal.js';
import { useNav } from '../stores/nav.js';
import { when } from './format.js';
import { syncTone } from './SyncParts.js';
import { type ConnectWords, SyncConnectForm, useConnectFields } from './SyncConnectForm.js';

const CONNECT_WORDS: ConnectWords = {
  form: 'Connect to your personal space',
  serverLabel: 'Personal server URL',
  token: "This machine's token",
  tokenLabel: 'Personal token',
  http: 'Allow plain http to another machine (contents stay encrypted; the token does not)',
};

function ConnectForm({ warning, minChars }: { warning: string; minChars: number }) {
  const busy = usePersonal((s) => s.busy);
  const error = usePersonal((s) => s.accountError);
  const overruledBy = usePersonal((s) => s.connectOverruledBy);
  const confirm = usePersonal((s) => s.confirm);
  const fields = useConnectFields();
  const [passphrase, setPassphrase] = useState('');
  const [again, setAgain] = useState('');
  const [acknowledged, setAcknowledged] = useState(false);
  const { server, token, allowHttp } = fields;
  const step = confirm ? 'confirm' : 'connect';
  const problem = connectProblem({ server, token, passphrase, again, acknowledged }, step, minChars);
  return (
    <SyncConnectForm
      words={CONNECT_WORDS}
      fields={fields}
      intro={
        <>
          <p>
            Sync each project&apos;s private memory between your own machines through your personal space on a Memdir sync server. It is encrypted here with a
            key from your passphrase: the server keeps only ciphertext. Your admin creates the space and a token per machine (
            <code>memdir server admin issue-token &lt;you&gt; --personal</code>).
          </p>
          <p className="banner warning" role="note" aria-label="About the passphrase">
            {warning}
          </p>
        </>
      }
      afterToken={
        <>
          <label>
            Passphrase
            <input
              aria-label="Passphrase"
              type="password"
              autoComplete="new-password"
              value={passphrase}
              onChange={(e) => setPassphrase(e.target.value)}
              required
              disabled={step === 'confirm'}
            />
          </label>
          {step === 'confirm' && (
            <div className="banner warning" role="alert" aria-label="Set the passphrase">
              <p>
                <strong>Your personal space has no passphrase yet: this one will be set now.</strong> Read again what losing it means, above: nobody can recover
                it for you.
              </p>
              <label>
                Type the passphrase again
                <input aria-label="Passphrase again" type="password" autoComplete="new-password" value={again} onChange={(e) => setAgain(e.target.value)} />
              </label>
              <label className="radio">
                <input type="checkbox" aria-label="I understand" checked={acknowledged} onChange={(e) => setAcknowledged(e.target.checked)} /> I have kept it
                somewhere safe, and I understand that if it is lost nobody can decrypt the synced copy.
              </label>
            </div>
          )}
        </>
      }
      locked={step === 'confirm'}
      busy={busy}
      error={error}
      overruledBy={overruledBy}
      disabled={busy || problem !== null}
      problem={problem}
      submitLabel={step === 'confirm' ? 'Set the passphrase and connect' : 'Connect'}
      {...(step === 'confirm' ? { back: () => usePersonal.getState().cancelConfirm() } : {})}
      onSubmit={(override) =>
        void usePersonal
          .getState()
          .connect({
            server: server.trim(),
            token: token.trim(),
            passphrase,
            ...(allowHttp || override?.allowHttp ? { allowHttp: true } : {}),
            ...(step === 'confirm' ? { acknowledged: true } : {}),
          })
          .then((done) => {
            if (done) {
              fields.setToken('');
              setPassphrase('');
              setAgain('');
            }
          })
      }
    />
  );
}

/** See the file comment. */
export function PersonalSyncSettings() {
  const status = usePersonal((s) => s.status);
  const busy = usePersonal((s) => s.busy);
  useEffect(() => {
    void usePersonal.getState().load();
  }, []);
  if (!status) return null;
  const a = status.account;
  return (
    <fieldset aria-label="Personal sync">
      <legend>Personal sync</legend>
      {!a ? (
        <ConnectForm warning={status.warning} minChars={status.minPassphraseChars} />
      ) : (
        <>
          <p>
            This machine (<strong>{a.member}</strong>) is connected to <strong>{a.user}</strong>&apos;s personal space at {a.server} since {when(a.connectedAt)}
            . Key <code aria-label="Key fingerprint">{a.keyId}</code> — the same on each of your machines.
            <span className="muted small">
              {' '}
              The token and key are {status.credentialsEncrypted ? 'encrypted with the system keychain' : 'stored unencrypted (mode 0600)'}; the passphrase is
              never stored.
            </span>
          </p>
          {status.projects.length === 0 ? (
            <p className="muted small">No project is synced yet: turn it on in a project&apos;s Team sync tab.</p>
          ) : (
            <table className="grid" aria-label="Personally synced projects">
              <tbody>
                {status.projects.map((p) => (
                  <tr key={p.memoryDir}>
                    <td>
                      {p.dir ? (
                        <button className="link" onClick={() => useNav.getState().go({ view: 'project', dir: p.dir!, tab: 'team' })}>
                          {p.dir}
                        </button>
                      ) : (
                        p.memoryDir
                      )}
                    </td>
                    <td className="small">{p.identity?.detail ?? '—'}</td>
                    <td>
                      <span className={`badge ${syncTone(p.state)}`}>{p.state}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="actions">
            <button
              onClick={() => void usePersonal.getState().disconnect()}
              disabled={busy}
              title="Forget the account, its token and key here; files and history stay"
            >
              Disconnect this machine
            </button>
          </div>
        </>
      )}
    </fieldset>
  );
}
