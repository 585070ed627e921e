/**
 * The one form that connects to a Memdir sync server, for a team (a project's Team sync tab) or
 * for your personal space (Settings → Personal sync): the server URL, the token, plain http to
 * another machine, the server's refusal, and the button. What differs (the words, a team name or
 * a passphrase, a step that confirms) is passed in.
 */
import { type FormEvent, type ReactNode, useId, useState } from 'react';

/** What the form says where team and personal sync differ. */
export interface ConnectWords {
  /** The form's accessible name. */
  form: string;
  serverLabel: string;
  token: string;
  tokenLabel: string;
  /** What plain http exposes. */
  http: string;
}

/** The server, token and http fields' state, held by the caller so it can send and clear them. */
export function useConnectFields() {
  const [server, setServer] = useState('');
  const [token, setToken] = useState('');
  const [allowHttp, setAllowHttp] = useState(false);
  return { server, setServer, token, setToken, allowHttp, setAllowHttp };
}

export type ConnectFields = ReturnType<typeof useConnectFields>;

export function SyncConnectForm({
  words,
  fields,
  intro,
  afterServer,
  afterToken,
  footer,
  locked = false,
  busy,
  error,
  overruledBy = null,
  disabled,
  problem,
  submitLabel,
  back,
  onSubmit,
}: {
  words: ConnectWords;
  fields: ConnectFields;
  intro: ReactNode;
  /** Fields between the server and the token (the team's name). */
  afterServer?: ReactNode;
  /** Fields after the token (the passphrase, its confirmation). */
  afterToken?: ReactNode;
  footer?: ReactNode;
  /** The server and token are fixed (a step that confirms what was typed). */
  locked?: boolean;
  busy: boolean;
  error: string | null;
  /** The input that overrules the refusal in `error` (`allowHttp`): the form offers that choice with it. */
  overruledBy?: string | null;
  disabled: boolean;
  /** Why it cannot be sent yet: said beside the button (a title on a disabled button reached nobody on a keyboard). */
  problem?: string | null;
  submitLabel: string;
  /** A way back from a confirming step. */
  back?: () => void;
  /** Send the fields; `override` carries a choice the refusal offered (plain http), taken at once. */
  onSubmit: (override?: { allowHttp: true }) => void;
}) {
  const why = useId();
  return (
    <form
      className="connect-form"
      aria-label={words.form}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {intro}
      <label>
        Server URL
        <input
          aria-label={words.serverLabel}
          placeholder="https://memdir.example.com"
          value={fields.server}
          onChange={(e) => fields.setServer(e.target.value)}
          required
          disabled={locked}
        />
      </label>
      {afterServer}
      <label>
        {words.token}
        <input
          aria-label={words.tokenLabel}
          type="password"
          autoComplete="off"
          placeholder="mdt_…"
          value={fields.token}
          onChange={(e) => fields.setToken(e.target.value)}
          required
          disabled={locked}
        />
      </label>
      {afterToken}
      <label className="radio">
        <input type="checkbox" checked={fields.allowHttp} onChange={(e) => fields.setAllowHttp(e.target.checked)} /> {words.http}
      </label>
      {error && (
        <div className="banner error" role="alert">
          {error}
          {/* The refusal the CLI overrules with --allow-http: the same choice, named, one click (the box is ticked too). */}
          {overruledBy === 'allowHttp' && !fields.allowHttp && (
            <div className="actions">
              <button
                type="button"
                disabled={busy}
                onClick={() => {
                  fields.setAllowHttp(true);
                  onSubmit({ allowHttp: true });
                }}
              >
                Allow plain http and {submitLabel.charAt(0).toLowerCase() + submitLabel.slice(1)}
              </button>
            </div>
          )}
        </div>
      )}
      <div className="actions">
        {back && (
          <button type="button" onClick={back} disabled={busy}>
            Back
          </button>
        )}
        <button className="primary" type="submit" disabled={disabled} aria-describedby={problem ? why : undefined}>
          {busy ? 'Connecting…' : submitLabel}
        </button>
        {problem && !busy && (
          <span id={why} className="muted small">
            {problem}
          </span>
        )}
      </div>
      {footer}
    </form>
  );
}
