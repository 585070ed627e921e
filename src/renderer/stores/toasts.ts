/** Short notices: saved, deleted (with undo), failed. */
import { create } from 'zustand';

export interface Toast {
  id: number;
  kind: 'info' | 'error';
  text: string;
  action?: { label: string; run: () => void };
}

interface ToastState {
  toasts: Toast[];
  show: (kind: Toast['kind'], text: string, action?: Toast['action']) => void;
  dismiss: (id: number) => void;
}

let next = 1;

/** How long a notice stays: long enough to read, longer when it offers an action (Undo). */
export function toastLifetime(toast: Pick<Toast, 'kind' | 'text' | 'action'>): number {
  const reading = 3000 + toast.text.length * 40;
  return Math.min(30_000, Math.max(toast.kind === 'error' ? 9000 : 5000, reading, toast.action ? 15_000 : 0));
}

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  show(kind, text, action) {
    const id = next++;
    const toast = { id, kind, text, ...(action ? { action } : {}) };
    set({ toasts: [...get().toasts.slice(-3), toast] });
    setTimeout(() => get().dismiss(id), toastLifetime(toast));
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));
