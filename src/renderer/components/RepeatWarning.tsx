/**
 * The editor's "this repeats a memory" warning: while a memory is written, the memories of its
 * scope that say the same thing (the app's one duplicate rule, asked of main), so the same fact
 * is not saved twice. Asked again half a second after the typing stops.
 */
import { useEffect } from 'react';
import type { Scope } from '../../shared/memory-types.js';
import { useNav } from '../stores/nav.js';
import { useSimilar } from '../stores/similar.js';
import './curation.css';

const WAIT_MS = 500;

export function RepeatWarning({
  dir,
  scope,
  file,
  name,
  description,
  body,
}: {
  dir: string;
  scope: Scope;
  file: string | null;
  name: string;
  description: string;
  body: string;
}) {
  const matches = useSimilar((s) => s.matches);
  const go = useNav((s) => s.go);
  useEffect(() => {
    if (!name.trim() && !description.trim() && !body.trim()) {
      useSimilar.getState().clear();
      return;
    }
    const timer = setTimeout(() => void useSimilar.getState().check({ dir, scope, file, name, description, body }), WAIT_MS);
    return () => {
      useSimilar.getState().forget();
      clearTimeout(timer);
    };
  }, [dir, scope, file, name, description, body]);
  // The next memory opened starts with no warning.
  useEffect(() => () => useSimilar.getState().clear(), []);
  if (matches.length === 0) return null;
  const first = matches[0]!;
  return (
    <div className="banner warning repeat-warning" role="status" aria-label="Repeats a memory">
      {file === null ? 'This new memory' : 'This memory'} repeats{' '}
      <button type="button" className="link" onClick={() => go({ view: 'project', dir, tab: 'memories', scope, file: first.file })}>
        {first.name} ({first.file})
      </button>
      : “{first.description}”{/* `exact` compares bodies with case, spacing and markdown folded: the name and description may differ. */}
      {first.kind === 'exact' ? ' — the same body, letter case, spacing and markdown aside' : ''}. Edit that one instead, or merge them afterwards in Health.
      {matches.length > 1 && (
        <span className="muted small">
          {' '}
          Also alike:{' '}
          {matches
            .slice(1)
            .map((m) => m.file)
            .join(', ')}
          .
        </span>
      )}
    </div>
  );
}
