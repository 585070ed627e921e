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

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  show(kind, text, action) {
    const id = next++;
    set({ toasts: [...get().toasts.slice(-3), { id, kind, text, ...(action ? { action } : {}) }] });
    setTimeout(() => get().dismiss(id), kind === 'error' ? 9000 : 5000);
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));
