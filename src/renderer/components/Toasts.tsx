import { useState } from 'react';
import { type Toast, type ToastAction, useToasts } from '../stores/toasts.js';

export function Toasts() {
  const toasts = useToasts((s) => s.toasts);
  return (
    <div className="toasts" role="region" aria-label="Notifications" aria-live="polite">
      {toasts.map((t) => (
        <Notice key={t.id} toast={t} />
      ))}
    </div>
  );
}

/** One notice: its line, its details behind "Show all" (kept short: a long list covered the buttons under it), its choices. */
function Notice({ toast: t }: { toast: Toast }) {
  const dismiss = useToasts((s) => s.dismiss);
  const hold = useToasts((s) => s.hold);
  const [open, setOpen] = useState(false);
  const choice = (a: ToastAction) => (
    <button
      onClick={() => {
        a.run();
        dismiss(t.id);
      }}
    >
      {a.label}
    </button>
  );
  return (
    <div
      className={`toast ${t.kind}`}
      role={t.kind === 'error' ? 'alert' : 'status'}
      onFocus={() => hold(t.id, true)}
      onBlur={(e) => !e.currentTarget.contains(e.relatedTarget) && hold(t.id, false)}
    >
      <div className="toast-body">
        <span>{t.text}</span>
        {t.details && open && (
          <ul className="toast-details">
            {t.details.map((d, i) => (
              <li key={i}>{d}</li>
            ))}
          </ul>
        )}
      </div>
      {t.details && (
        <button className="link small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show less' : (t.detailsLabel ?? `Show all ${t.details.length}`)}
        </button>
      )}
      {t.action && choice(t.action)}
      {t.also && choice(t.also)}
      <button className="icon" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
        ×
      </button>
    </div>
  );
}
