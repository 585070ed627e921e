/**
 * A save refused because it would hold a secret it did not hold before (secrets/save-guard.ts):
 * the refusal in words, each secret masked with the fingerprint that saves it anyway, and the
 * person's choice — save anyway on purpose, or go back. Every save the guard can refuse asks with
 * it: the memory editor (a save, a new memory, a rename, a recreate), MEMORY.md, and the merge editors of
 * team, personal and relink conflicts. Go back has the focus; Escape goes back.
 */
import { anywayLabel, type SecretRefusal } from '../stores/errors.js';
import { Question } from './DialogFocus.js';

export function SecretConfirm({
  refusal,
  saveAnyway,
  back,
  verb = 'Save',
  backLabel = 'Go back',
  busy = false,
}: {
  refusal: SecretRefusal;
  saveAnyway: () => void;
  back: () => void;
  /** What the confirm button does, capitalised: "Save", "Rename", "Recreate". */
  verb?: string;
  backLabel?: string;
  busy?: boolean;
}) {
  const { secrets } = refusal;
  return (
    <Question label="Secret warning" role="alertdialog" className="banner warning" inline={false} onClose={back}>
      <p>{refusal.message}</p>
      <p>
        Remove it (and revoke it if it is real), or {verb.toLowerCase()} anyway on purpose:{' '}
        {secrets.map((s) => `${s.title} ${s.match} [fingerprint ${s.fingerprint}]`).join(', ')}.
      </p>
      <button type="button" className="danger" onClick={saveAnyway} disabled={busy}>
        {anywayLabel(verb, secrets)}
      </button>
      <button type="button" onClick={back} autoFocus>
        {backLabel}
      </button>
    </Question>
  );
}
