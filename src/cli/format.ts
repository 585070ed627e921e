/** Plain-text rendering helpers for the CLI's human output. */
import type { Problem } from '../shared/problems.js';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return `${rows
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

const MARK: Record<Problem['severity'], string> = { error: 'error', warning: 'warn ', hint: 'hint ' };

export function formatProblem(p: Problem): string {
  const where = p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : '(directory)';
  return `  ${MARK[p.severity]} ${p.code.padEnd(17)} ${where}  ${p.message}${p.fix ? `  [fixable: ${p.fix}]` : ''}`;
}

export function ago(ms: number | null, now = Date.now()): string {
  if (ms === null) return '—';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}
