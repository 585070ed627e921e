/**
 * What the focused control explains, shown as visible text while it has the keyboard's focus:
 * - a control's `title` ("Put every memory back as it was…"): the browser shows a title only under
 *   a hovering mouse;
 * - for a list that keeps the focus itself and points at its active row (aria-activedescendant: the
 *   memory list), that row's badges and their reasons (Badge's `data-why`): "unlisted: Not listed in
 *   MEMORY.md". Arrowing to another row shows that row's, on the side the arrow came from (over rows
 *   already read, not the ones the user goes to next);
 * - for a control in a table row (the dashboard's project name), that row's badges and their reasons.
 * A screen reader already reads both (the title as the control's description, a badge's reason after
 * its word), so this text is hidden from it (read once, not twice). Escape hides it (WCAG 1.4.13:
 * dismissible without moving the focus). One place for every titled control and every badge,
 * instead of a second copy of each explanation beside it.
 */
import { useEffect, useState } from 'react';

interface Hint {
  text: string;
  left: number;
  /** Its top edge, when drawn below the row or control… */
  top?: number;
  /** …or its bottom edge, when drawn above it (the hint's own height decides nothing: it grows upward). */
  bottom?: number;
}

/** The widest a hint is drawn; it stays inside the window. */
const WIDTH = 320;
/** Room a hint needs on a side to be drawn there (two lines of reasons). */
const ROOM = 60;

/** Above or below `r` (`above`: the side asked for, taken if there is room, else the other side); never past the window's right edge. */
function beside(r: DOMRect, text: string, above = false): Hint {
  const roomAbove = r.top - 6 >= ROOM;
  const roomBelow = r.bottom + 6 + ROOM < window.innerHeight;
  const left = Math.max(4, Math.min(r.left, window.innerWidth - Math.min(WIDTH, window.innerWidth - 8) - 4));
  return (above && roomAbove) || (!roomBelow && roomAbove) ? { text, left, bottom: window.innerHeight - r.top + 6 } : { text, left, top: r.bottom + 6 };
}

/**
 * Which way the keyboard last moved in a list (s43: a hint drawn below the row hid the rows the user was
 * arrowing down to). The row's place in its list (not in the window: the list scrolls as the arrow moves).
 */
let travel: { list: Element; at: number; down: boolean } | null = null;

/** Arrowing down, the hint goes above the row, over rows already read; arrowing up, below it. First shown: above (lists are read downward). */
function listHint(list: Element, row: HTMLElement, text: string | null): Hint | null {
  // Every move counts, to a row with badges or not: the way the user goes is the way they went last.
  const r = row.getBoundingClientRect();
  const at = r.top - (row.parentElement ?? list).getBoundingClientRect().top;
  const down = travel && travel.list === list && travel.at !== at ? at > travel.at : travel?.list === list ? travel.down : true;
  travel = { list, at, down };
  return text ? beside(r, text, down) : null;
}

/** The badges of `row` with their reasons (Badge's `data-why`), one a line: "unlisted: Not listed in MEMORY.md". */
function badgeReasons(row: Element | null): string | null {
  const reasons = row ? [...row.querySelectorAll<HTMLElement>('[data-why]')].map((b) => `${b.textContent?.trim()}: ${b.dataset.why}`) : [];
  return reasons.length > 0 ? reasons.join('\n') : null;
}

function hintFor(el: Element | null): Hint | null {
  if (!(el instanceof HTMLElement) || !el.matches(':focus-visible')) return null;
  const activeId = el.getAttribute('aria-activedescendant');
  if (activeId) {
    const row = document.getElementById(activeId);
    return row ? listHint(el, row, badgeReasons(row)) : null;
  }
  const text = el.getAttribute('title')?.trim();
  // A title that only repeats what the control says adds nothing to show.
  if (text && text !== el.textContent?.trim() && text !== el.getAttribute('aria-label')) return beside(el.getBoundingClientRect(), text);
  // A table row's control (the dashboard's project name): the row's badges ("auto memory off") and why.
  const reasons = badgeReasons(el.closest('tr'));
  return reasons ? beside(el.getBoundingClientRect(), reasons) : null;
}

export function FocusHint() {
  const [hint, setHint] = useState<Hint | null>(null);
  useEffect(() => {
    // Escape keeps it hidden until the focus or the active row moves (a scroll does not bring it back).
    let dismissed = false;
    const show = () => {
      dismissed = false;
      setHint(hintFor(document.activeElement));
    };
    const follow = () => {
      if (!dismissed) setHint(hintFor(document.activeElement));
    };
    const hide = () => setHint(null);
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      dismissed = true;
      hide();
    };
    // A list's active row moves with the arrows, the focus stays on the list.
    const rows = new MutationObserver(show);
    rows.observe(document.body, { attributes: true, attributeFilter: ['aria-activedescendant'], subtree: true });
    document.addEventListener('focusin', show);
    document.addEventListener('focusout', hide);
    // Capture: before a control's own Escape moves the focus (whose new hint then shows).
    document.addEventListener('keydown', onKey, true);
    // A scrolled page moves the control from under its hint; a scrolled list brings its active row into view.
    document.addEventListener('scroll', follow, true);
    return () => {
      rows.disconnect();
      document.removeEventListener('focusin', show);
      document.removeEventListener('focusout', hide);
      document.removeEventListener('keydown', onKey, true);
      document.removeEventListener('scroll', follow, true);
    };
  }, []);
  if (!hint) return null;
  return (
    <div
      className="focus-hint"
      role="tooltip"
      aria-hidden="true"
      style={{ top: hint.top, bottom: hint.bottom, left: hint.left, maxWidth: Math.min(WIDTH, window.innerWidth - 8) }}
    >
      {hint.text}
    </div>
  );
}
