/**
 * A badge whose short word ("cut", "unlisted") stands for a reason. The reason is the badge's
 * title for a mouse, said after the word to a screen reader (a title on a span is read by none of
 * them reliably, and reached by no keyboard): "cut (its pointer is past the MEMORY.md cut…)", and
 * `data-why` for a sighted keyboard user: while the list the badge sits in has the focus and its row
 * is the active one, FocusHint shows "cut: its pointer is past…" beside the row. The reason sits
 * beside the badge, not in it: the badge's own text stays its word.
 */
import type { ReactNode } from 'react';

export function Badge({ tone, why, children }: { tone?: 'error' | 'warning' | 'ok' | 'draft'; why?: string | null | undefined; children: ReactNode }) {
  return (
    <>
      <span className={tone ? `badge ${tone}` : 'badge'} title={why ?? undefined} data-why={why ?? undefined}>
        {children}
      </span>
      {why && <span className="sr-only"> ({why})</span>}
    </>
  );
}
