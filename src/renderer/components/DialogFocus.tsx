/**
 * The one way a dialog — or a question that stands in for one (delete? restore? save anyway?) —
 * treats the keyboard: when it opens, focus goes into it (its autoFocus control, else its first
 * one); Escape closes it; while it is modal, Tab stays inside; when it goes, focus returns to what
 * opened it, or to `returnTo` (the control that takes the opener's place), instead of falling to
 * the page's body, where a keyboard or screen-reader user loses their place.
 */
import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useRef, useState } from 'react';

/** What Tab reaches (the one selector: a dialog's Tab trap, and whether a scrolling view needs a Tab stop of its own). */
export const FOCUSABLE =
  'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

function focusables(box: HTMLElement | null): HTMLElement[] {
  return box ? [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0) : [];
}

export interface DialogFocusOptions {
  /** What Escape does: the dialog's Cancel / Keep / Go back. */
  onClose: () => void;
  /** Tab and Shift+Tab stay inside (a dialog the rest of the page waits for). */
  modal?: boolean;
  /** Where focus goes when it closes, when the opener itself is gone (a Delete button re-rendered after Keep). */
  returnTo?: RefObject<HTMLElement | null>;
}

/** Attach `ref` and `onKeyDown` to the dialog's box. */
export function useDialogFocus<T extends HTMLElement>({ onClose, modal = false, returnTo }: DialogFocusOptions) {
  const ref = useRef<T>(null);
  const close = useRef(onClose);
  close.current = onClose;
  const back = useRef(returnTo);
  back.current = returnTo;
  // Read while rendering, before React moves focus to an autoFocus control inside.
  const [opener] = useState(() => (typeof document !== 'undefined' && document.activeElement instanceof HTMLElement ? document.activeElement : null));
  useEffect(() => {
    const box = ref.current;
    if (box && !box.contains(document.activeElement)) (focusables(box)[0] ?? box).focus();
    return () => {
      // After the commit that removed the dialog (and put back the control it replaced).
      const now = document.activeElement;
      const lost = now === null || now === document.body || !now.isConnected || (box?.contains(now) ?? false);
      if (!lost) return;
      const target = back.current?.current ?? (opener?.isConnected ? opener : null);
      target?.focus();
    };
  }, [opener]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close.current();
      return;
    }
    if (e.key !== 'Tab' || !modal) return;
    const items = focusables(ref.current);
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return e.preventDefault();
    const at = document.activeElement;
    if (e.shiftKey && (at === first || !ref.current?.contains(at))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (at === last || !ref.current?.contains(at))) {
      e.preventDefault();
      first.focus();
    }
  };
  return { ref, onKeyDown };
}

/**
 * A question shown in place (inline, not over the page): a group of choices, or an alert dialog
 * the user answers before going on, with the focus rules above.
 */
export function Question({
  label,
  role = 'group',
  className = 'inline-form',
  inline = true,
  children,
  ...focus
}: DialogFocusOptions & { label: string; role?: 'group' | 'alertdialog' | 'dialog'; className?: string; inline?: boolean; children: ReactNode }) {
  const { ref, onKeyDown } = useDialogFocus<HTMLElement>(focus);
  const Box = inline ? 'span' : 'div';
  return (
    <Box ref={ref as RefObject<HTMLSpanElement & HTMLDivElement>} className={className} role={role} aria-label={label} onKeyDown={onKeyDown} tabIndex={-1}>
      {children}
    </Box>
  );
}
