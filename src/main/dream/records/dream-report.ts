/**
 * The report of a dream, in words: the body of its history entry `dream <id>`, the record's
 * `report`, what `memdir dream` prints.
 */
import { type DreamChange, type DreamRecord, dreamCouldNotRead } from '../../../shared/contract/dream.js';
import type { StagedChange } from '../plan/dream-plan.js';
import { listInWords, plural } from '../../../shared/size-text.js';

/** What a dream could not read, as a sentence without its full stop: `Memdir could not read a or b and left them as they are`. */
export function sayCouldNotRead(unread: readonly string[]): string {
  return `Memdir could not read ${listInWords(unread, 'or')} and left ${unread.length === 1 ? 'it as it is' : 'them as they are'}`;
}

/** A staged change as the record lists it. */
export function toChange(c: StagedChange, status: DreamChange['status'], skippedReason: string | null = null): DreamChange {
  return { file: c.file, action: c.action, kind: c.kind, reason: c.reason, group: c.group, status, skippedReason };
}

/** The report: the history entry's body, the record's `report`, what the CLI prints. */
export function formatReport(record: DreamRecord): string {
  const method = record.method === 'model' ? `model ${record.model ?? ''}`.trim() : record.method === 'rules' ? 'offline rules' : 'no consolidation';
  const applied = record.changes.filter((c) => c.status === 'applied');
  const planned = record.changes.filter((c) => c.status === 'planned');
  const skipped = record.changes.filter((c) => c.status === 'skipped');
  const unread = dreamCouldNotRead(record);
  const notRead = unread.length ? `; ${sayCouldNotRead(unread)}` : '';
  const head: Record<DreamRecord['status'], string> = {
    running: 'running',
    completed: `${plural(applied.length, 'file')} changed${skipped.length ? `, ${skipped.length} left alone` : ''}${notRead}`,
    // Nothing to change only in what it read: a file it could not read is no "nothing to change".
    'no-changes': unread.length ? `nothing changed: ${sayCouldNotRead(unread)}` : 'nothing to change',
    'needs-confirmation': `held back: it removes ${record.deletions.count} of ${record.deletions.total} memories, more than the ${record.deletions.limit} allowed without confirmation`,
    'dry-run': `dry run: ${plural(planned.length, 'file')} would change${notRead}`,
    cancelled: 'cancelled; nothing was changed',
    failed: `failed: ${record.error ?? 'unknown error'}; nothing was changed`,
    interrupted: `interrupted: ${record.error ?? 'the process stopped'}`,
  };
  const lines = [`Dream ${record.id} (${record.trigger}, ${method}) — ${head[record.status]}.`];
  if (record.fallbackReason) lines.push(`The offline rules ran instead of the model: ${record.fallbackReason}`);
  const list = (title: string, items: DreamChange[], extra: (c: DreamChange) => string) => {
    if (items.length === 0) return;
    lines.push('', title);
    for (const c of items) lines.push(`- ${c.action} ${c.file} [${c.kind}]: ${extra(c)}`);
  };
  list('Changes:', [...applied, ...planned], (c) => c.reason);
  list('Left alone:', skipped, (c) => c.skippedReason ?? '');
  if (record.flags.length > 0) {
    lines.push('', 'For you to look at:');
    for (const f of record.flags) lines.push(`- [${f.kind}] ${f.message}`);
  }
  if (record.tokens.input + record.tokens.output > 0)
    lines.push(
      '',
      `Tokens: ${record.tokens.input.toLocaleString('en')} in / ${record.tokens.output.toLocaleString('en')} out${record.costUsd !== null ? ` (~$${record.costUsd.toFixed(4)}, estimate)` : ''}.`,
    );
  return lines.join('\n');
}
