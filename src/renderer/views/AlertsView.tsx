/**
 * Alerts (issue 7 part 5): secrets that kept a memory from being shared — file, line, rule and
 * the masked match, never the secret — with open (jump to the memory), redact (the secret is
 * replaced by a placeholder, recorded in history; a secret in a file's name is renamed away instead)
 * and allow (recorded with who and why); and
 * sync and security alerts. Closed alerts and allowed findings stay listed for the record.
 */
import { type RefObject, useEffect, useRef, useState } from 'react';
import type { AlertRecord } from '../../shared/contract/alerts.js';
import { shownFileOf } from '../../shared/alert-file.js';
import { type Finding, whereFound } from '../../shared/secret-types.js';
import { Breakable } from '../components/Breakable.js';
import { type CardColumn, CardRow, CardTable } from '../components/CardTable.js';
import { useDialogFocus } from '../components/DialogFocus.js';
import { Time } from '../components/Time.js';
import { alertTarget, splitAlerts, useAlerts } from '../stores/alerts.js';
import { useNav } from '../stores/nav.js';

function AllowForm({
  alert,
  finding,
  onDone,
  returnTo,
}: {
  alert: AlertRecord;
  finding: Finding;
  onDone: () => void;
  returnTo: RefObject<HTMLButtonElement | null>;
}) {
  const { ref, onKeyDown } = useDialogFocus<HTMLFormElement>({ onClose: onDone, returnTo });
  const [why, setWhy] = useState('');
  const busy = useAlerts((s) => s.busy);
  return (
    <form
      ref={ref}
      onKeyDown={onKeyDown}
      className="inline-form"
      aria-label={`Allow ${finding.title}, ${whereFound(finding)}`}
      onSubmit={(e) => {
        e.preventDefault();
        void useAlerts
          .getState()
          .allow(alert.id, finding.fingerprint, why.trim())
          .then((ok) => ok && onDone());
      }}
    >
      <input
        aria-label="Why it is safe to share"
        placeholder="Why is it safe to share? (recorded)"
        value={why}
        onChange={(e) => setWhy(e.target.value)}
        autoFocus
      />
      <button type="submit" disabled={busy || why.trim().length < 3}>
        Allow
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** A secret in a file's name cannot be redacted: the file gets a new name (the one rename service, undoable). */
function RenameForm({
  alert,
  finding,
  onDone,
  returnTo,
}: {
  alert: AlertRecord;
  finding: Finding;
  onDone: () => void;
  returnTo: RefObject<HTMLButtonElement | null>;
}) {
  const { ref, onKeyDown } = useDialogFocus<HTMLFormElement>({ onClose: onDone, returnTo });
  const [to, setTo] = useState('');
  const busy = useAlerts((s) => s.busy);
  const folder = alert.file?.startsWith('team/') ? 'team/' : '';
  return (
    <form
      ref={ref}
      onKeyDown={onKeyDown}
      className="inline-form"
      aria-label={`Rename the file holding ${finding.title}, ${whereFound(finding)}`}
      onSubmit={(e) => {
        e.preventDefault();
        void useAlerts
          .getState()
          .rename(alert, finding.fingerprint, to.trim())
          .then((ok) => ok && onDone());
      }}
    >
      {folder && <span className="muted small">{folder}</span>}
      <input aria-label="New file name" placeholder="new-name.md" value={to} onChange={(e) => setTo(e.target.value)} autoFocus />
      <button type="submit" disabled={busy || to.trim().length === 0}>
        Rename
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** A finding's actions have a header a screen reader reads (it was empty); on a card they go without it. */
const FINDING_COLUMNS: CardColumn[] = [{ label: 'Where' }, { label: 'Rule' }, { label: 'Match' }, { label: 'Actions', bare: true }];

function Findings({ alert }: { alert: AlertRecord }) {
  const busy = useAlerts((s) => s.busy);
  const [allowing, setAllowing] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  // The button that opened the form, drawn again when it closes: Cancel and Escape give it the focus back.
  const opener = useRef<HTMLButtonElement>(null);
  const [lastOpened, setLastOpened] = useState<string | null>(null);
  const open = (show: (fingerprint: string) => void, form: 'allow' | 'rename', fingerprint: string) => {
    setLastOpened(`${form}:${fingerprint}`);
    show(fingerprint);
  };
  const target = alertTarget(alert);
  return (
    <CardTable label={`Findings in ${shownFileOf(alert)}`} columns={FINDING_COLUMNS}>
      {alert.findings.map((f) => (
        <CardRow key={f.fingerprint || `${f.line}:${f.column}`}>
          <td className={f.where === 'name' ? undefined : 'num'}>{f.where === 'name' ? whereFound(f) : f.line}</td>
          <td>
            {f.title}{' '}
            <span className="muted small">
              <Breakable text={f.rule} />
            </span>
          </td>
          <td>
            <code>{f.match}</code>
          </td>
          <td>
            {allowing === f.fingerprint ? (
              <AllowForm alert={alert} finding={f} onDone={() => setAllowing(null)} returnTo={opener} />
            ) : renaming === f.fingerprint ? (
              <RenameForm alert={alert} finding={f} onDone={() => setRenaming(null)} returnTo={opener} />
            ) : (
              <span className="actions">
                {target && <button onClick={() => useNav.getState().go(target)}>Open</button>}
                {alert.status === 'open' && f.fingerprint && (
                  <>
                    {f.where === 'name' ? (
                      <button
                        ref={lastOpened === `rename:${f.fingerprint}` ? opener : undefined}
                        onClick={() => open(setRenaming, 'rename', f.fingerprint)}
                        disabled={busy}
                        title="The secret is in the file's name: redacting cannot remove it, a new name does (recorded in history, undoable)"
                      >
                        Rename…
                      </button>
                    ) : (
                      <button
                        onClick={() => void useAlerts.getState().redact(alert.id, f.fingerprint)}
                        disabled={busy}
                        title="Replace the secret with [REDACTED] in the file (recorded in history)"
                      >
                        Redact
                      </button>
                    )}
                    <button
                      ref={lastOpened === `allow:${f.fingerprint}` ? opener : undefined}
                      onClick={() => open(setAllowing, 'allow', f.fingerprint)}
                      disabled={busy}
                      title="Not a secret, or meant to be shared: say why"
                    >
                      Allow…
                    </button>
                  </>
                )}
              </span>
            )}
          </td>
        </CardRow>
      ))}
    </CardTable>
  );
}

function AlertCard({ alert }: { alert: AlertRecord }) {
  const target = alertTarget(alert);
  return (
    <article className={`alert-card ${alert.status}`} aria-label={alert.title} data-kind={alert.kind}>
      <header className="toolbar">
        <span className={`badge ${alert.kind === 'secret' || alert.kind === 'security' ? 'error' : 'warning'}`}>{alert.kind}</span>
        <strong>{alert.title}</strong>
        <span className="spacer" />
        <span className="muted small">
          <Time at={alert.updatedAt} />
          {alert.count > 1 ? ` · ${alert.count}×` : ''}
          {alert.dir ? ` · ${alert.dir}` : ''}
        </span>
        {alert.status === 'open' && <button onClick={() => void useAlerts.getState().dismiss(alert.id)}>Dismiss</button>}
      </header>
      <p>{alert.message}</p>
      {alert.findings.length > 0 && <Findings alert={alert} />}
      {alert.findings.length === 0 && target && alert.status === 'open' && (
        <button className="link" onClick={() => useNav.getState().go(target)}>
          Open {alert.file}
        </button>
      )}
      {alert.status !== 'open' && <p className="muted small">{alert.status === 'dismissed' ? 'Dismissed.' : `Resolved: ${alert.resolution ?? ''}.`}</p>}
    </article>
  );
}

export function AlertsView() {
  const { alerts, allowed, loaded, error } = useAlerts();
  const [showClosed, setShowClosed] = useState(false);
  useEffect(() => {
    void useAlerts.getState().load();
  }, []);
  const { open, closed } = splitAlerts(alerts);
  return (
    <section className="alerts" aria-label="Alerts">
      <header className="view-head">
        <h1>Alerts</h1>
        <span className="muted">{open.length ? `${open.length} open` : 'nothing open'}</span>
      </header>
      {error && <div className="banner error">{error}</div>}
      {loaded && open.length === 0 && <p className="ok-note">No open alerts. Secrets found before an upload, refused links and sync problems show up here.</p>}
      <div className="alert-list" role="list" aria-label="Open alerts">
        {open.map((a) => (
          <div role="listitem" key={a.id}>
            <AlertCard alert={a} />
          </div>
        ))}
      </div>
      {closed.length > 0 && (
        <section aria-label="Closed alerts">
          <h2>
            <button className="link" onClick={() => setShowClosed(!showClosed)} aria-expanded={showClosed}>
              {showClosed ? '▾' : '▸'} {closed.length} resolved or dismissed
            </button>
          </h2>
          {showClosed && closed.map((a) => <AlertCard key={a.id} alert={a} />)}
        </section>
      )}
      {allowed.length > 0 && (
        <section aria-label="Allowed findings">
          <h2>Allowed</h2>
          <table className="grid" aria-label="Allowed findings">
            <tbody>
              {allowed.map((a) => (
                <tr key={`${a.memoryDir}:${a.space ?? ''}:${a.fingerprint}:${a.only ?? ''}:${a.file}`}>
                  <td>
                    <code>{a.match}</code> <span className="muted small">{a.rule}</span>
                  </td>
                  <td className="small">
                    {a.file}
                    {a.only === 'name' && <span className="muted"> (in its name and its pointer only)</span>}
                    {a.space && <span className="muted"> · {a.space === 'team' ? 'team sync' : 'personal sync'} only</span>}
                  </td>
                  <td className="small">
                    by {a.who}, <Time at={a.at} />: “{a.why}”
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
