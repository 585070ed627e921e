import { type FocusEvent, useRef, useState } from 'react';
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

/**
 * One notice: its line, its details behind "Show all" (kept short: a long list covered the buttons
 * under it), its choices. Escape dismisses it too. When it goes with the focus in it (Dismiss, Undo,
 * Escape), the focus goes back to where it was before it came into the notice — or to the view, when
 * that is gone — not to the page's body, where a keyboard or screen-reader user loses their place.
 */
function Notice({ toast: t }: { toast: Toast }) {
  const dismiss = useToasts((s) => s.dismiss);
  const hold = useToasts((s) => s.hold);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const cameFrom = useRef<HTMLElement | null>(null);
  const close = () => {
    if (box.current?.contains(document.activeElement)) {
      const back = cameFrom.current?.isConnected ? cameFrom.current : document.querySelector<HTMLElement>('main.content');
      back?.focus();
    }
    dismiss(t.id);
  };
  const onFocus = (e: FocusEvent<HTMLDivElement>) => {
    if (!e.currentTarget.contains(e.relatedTarget)) cameFrom.current = e.relatedTarget instanceof HTMLElement ? e.relatedTarget : null;
    hold(t.id, true);
  };
  const choice = (a: ToastAction) => (
    <button
      onClick={() => {
        a.run();
        close();
      }}
    >
      {a.label}
    </button>
  );
  return (
    <div
      ref={box}
      className={`toast ${t.kind}`}
      role={t.kind === 'error' ? 'alert' : 'status'}
      onFocus={onFocus}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        close();
      }}
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
      <button className="icon" aria-label="Dismiss" onClick={close}>
        ×
      </button>
    </div>
  );
}
