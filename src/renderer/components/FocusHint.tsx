/**
 * A control's `title` — its explanation ("Put every memory back as it was…") — shown as visible
 * text while the control has the keyboard's focus. The browser shows a title only under a
 * hovering mouse, so a keyboard user never saw it; a screen reader already reads it as the
 * control's description, so this text is hidden from it (read once, not twice). One place for
 * every titled control, instead of a second copy of each explanation beside it.
 */
import { useEffect, useState } from 'react';

interface Hint {
  text: string;
  top: number;
  left: number;
}

/** The widest a hint is drawn; it stays inside the window. */
const WIDTH = 320;

function hintFor(el: EventTarget | null): Hint | null {
  if (!(el instanceof HTMLElement) || !el.matches(':focus-visible')) return null;
  const text = el.getAttribute('title')?.trim();
  // A title that only repeats what the control says adds nothing to show.
  if (!text || text === el.textContent?.trim() || text === el.getAttribute('aria-label')) return null;
  const r = el.getBoundingClientRect();
  const below = r.bottom + 6 + 60 < window.innerHeight;
  return { text, top: below ? r.bottom + 6 : Math.max(4, r.top - 6 - 60), left: Math.max(4, Math.min(r.left, window.innerWidth - WIDTH - 4)) };
}

export function FocusHint() {
  const [hint, setHint] = useState<Hint | null>(null);
  useEffect(() => {
    const show = (e: FocusEvent) => setHint(hintFor(e.target));
    const hide = () => setHint(null);
    document.addEventListener('focusin', show);
    document.addEventListener('focusout', hide);
    // A scrolled page moves the control from under its hint.
    document.addEventListener('scroll', hide, true);
    return () => {
      document.removeEventListener('focusin', show);
      document.removeEventListener('focusout', hide);
      document.removeEventListener('scroll', hide, true);
    };
  }, []);
  if (!hint) return null;
  return (
    <div className="focus-hint" role="tooltip" aria-hidden="true" style={{ top: hint.top, left: hint.left, maxWidth: WIDTH }}>
      {hint.text}
    </div>
  );
}
