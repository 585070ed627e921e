/** Short notices: saved, deleted (with undo), failed. */
import { create } from 'zustand';

/** A button on a notice: what it says, what it does (the notice closes after). */
export interface ToastAction {
  label: string;
  run: () => void;
}

export interface Toast {
  id: number;
  kind: 'info' | 'error';
  text: string;
  action?: ToastAction;
  /** A second choice beside `action` (a refused restore: "Restore as …" or "Restore anyway"). */
  also?: ToastAction;
  /** Sentences behind the one-line `text` (each pointer put back), shown by "Show all": every fact a click away. */
  details?: string[];
  /** What the button that shows `details` says ("Show all 15" when not given). */
  detailsLabel?: string;
  /** The focus is in it: it stays until the focus leaves (a keyboard user on its Undo lost both when it went). */
  held?: boolean;
}

interface ToastState {
  toasts: Toast[];
  show: (kind: Toast['kind'], text: string, action?: ToastAction, more?: Pick<Toast, 'also' | 'details' | 'detailsLabel'>) => void;
  dismiss: (id: number) => void;
  /** Keep the notice while the focus is in it (`held`), or let it go when its time is up. */
  hold: (id: number, held: boolean) => void;
}

let next = 1;

/** How long a notice stays: long enough to read, longer when it offers an action (Undo) or more to read (Show all). */
export function toastLifetime(toast: Pick<Toast, 'kind' | 'text' | 'action' | 'details'>): number {
  const reading = 3000 + toast.text.length * 40;
  return Math.min(30_000, Math.max(toast.kind === 'error' ? 9000 : 5000, reading, toast.action ? 15_000 : 0, toast.details ? 20_000 : 0));
}

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  show(kind, text, action, more) {
    const id = next++;
    const toast: Toast = {
      id,
      kind,
      text,
      ...(action ? { action } : {}),
      ...(more?.also ? { also: more.also } : {}),
      ...(more?.details && more.details.length > 0 ? { details: more.details, ...(more.detailsLabel ? { detailsLabel: more.detailsLabel } : {}) } : {}),
    };
    set({ toasts: [...get().toasts.slice(-3), toast] });
    const expire = () => (get().toasts.find((t) => t.id === id)?.held ? setTimeout(expire, 1000) : get().dismiss(id));
    setTimeout(expire, toastLifetime(toast));
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
  hold(id, held) {
    set({ toasts: get().toasts.map((t) => (t.id === id ? { ...t, held } : t)) });
  },
}));
