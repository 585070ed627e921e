/**
 * What a Memdir killed in the middle of `memdir merge undo <id>` leaves on disk, made without a
 * kill so a test of the front doors (the CLI, the app) is exact: the turn's intent still in the
 * data folder, with the steps begun planned in it, in the order the undo turns the folders
 * (undoOrder), and those folders written — each with its entry recorded (killed between the
 * folders, or after the last one), or the last one's not (killed inside it, before or after its
 * writes). turn-crash.test.ts makes the same with real kills; merge-worker.ts is a real merge, or
 * undo, for a test to kill.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { MergeRecord } from '../../../shared/contract/identity.js';
import { readAtRevision, readEntry } from '../../history/index.js';
import { headRevision } from '../../history/index.js';
import { removeFileConfined, writeFileAtomic } from '../../core/safe-fs.js';
import { undoChange } from '../../memdir/index.js';
import { journalFile, type TurnIntent } from '../turn-as-one.js';
import { undoOrder } from '../undo-merge.js';

function intentOf(record: MergeRecord): TurnIntent {
  return {
    op: 'turn',
    id: record.id,
    kind: record.kind,
    what: `undoing ${record.kind} ${record.id}`,
    turn: randomUUID(),
    folders: record.touched.map((t) => t.memoryDir),
    steps: [],
    recordState: 'made',
    startedAt: new Date().toISOString(),
    pid: 2 ** 22 + 1,
  };
}

const base64 = (text: string | Buffer | null) => (text === null ? null : Buffer.from(text).toString('base64'));

/**
 * Killed between the folders: the undo written and recorded (tagged) in the first `folders`
 * folders it turns (undoOrder: where it writes the moved memory back first; 1: between the folders;
 * all of them: after the last folder, its record not saved yet), not in the others.
 */
export async function undoKilledBetweenFolders(dataDir: string, record: MergeRecord, folders = 1): Promise<void> {
  const intent = intentOf(record);
  await leaveIntent(dataDir, intent);
  await undoIn(dataDir, intent, (await undoOrder(dataDir, record.touched)).slice(0, folders));
}

/** The undo of each of `steps`, written and recorded (tagged with `intent`'s turn), each planned in `intent` first. */
async function undoIn(dataDir: string, intent: TurnIntent, steps: readonly MergeRecord['touched'][number][]): Promise<void> {
  for (const step of steps)
    await undoChange({
      memoryDir: step.memoryDir,
      dataDir,
      rev: step.rev,
      turn: intent.turn,
      beforeWrite: async (writes) => {
        intent.steps.push({
          memoryDir: step.memoryDir,
          head: await headRevision(step.memoryDir, { dataDir }),
          writes: writes.map((w) => ({ file: w.file, before: base64(w.before), after: base64(w.after) })),
        });
        await leaveIntent(dataDir, intent);
      },
    });
}

/**
 * Killed inside its last folder (where it takes the moved memory out, work/shop for a clone
 * merge): the others done and recorded (undoKilledBetweenFolders), that folder's step planned in the
 * intent and its files written as the undo writes them (each as before the merge: the moved memory
 * gone, MEMORY.md as it was), the entry not yet recorded. `written`: only these of its files were
 * written before the kill (none: killed right after its plan was journalled).
 */
export async function undoKilledInsideLastFolder(dataDir: string, record: MergeRecord, written?: readonly string[]): Promise<void> {
  const order = await undoOrder(dataDir, record.touched);
  const last = order.at(-1)!;
  const intent = intentOf(record);
  await leaveIntent(dataDir, intent);
  await undoIn(dataDir, intent, order.slice(0, -1));
  const parent = (await readEntry(last.memoryDir, last.rev, { dataDir })).parent;
  const writes = await Promise.all(
    last.files.map(async (file) => ({
      file,
      before: await fs.readFile(path.join(last.memoryDir, file), 'utf8').catch(() => null),
      after: parent ? await readAtRevision(last.memoryDir, parent, file, { dataDir }) : null,
    })),
  );
  intent.steps.push({
    memoryDir: last.memoryDir,
    head: await headRevision(last.memoryDir, { dataDir }),
    writes: writes.map((w) => ({ file: w.file, before: base64(w.before), after: base64(w.after) })),
  });
  await leaveIntent(dataDir, intent);
  for (const w of writes) {
    if (written && !written.includes(w.file)) continue;
    if (w.after === null) await removeFileConfined(last.memoryDir, w.file);
    else await writeFileAtomic(last.memoryDir, w.file, w.after);
  }
}

/** The intent a killed turn leaves in the data folder, as given. */
export async function leaveIntent(dataDir: string, intent: TurnIntent | string): Promise<void> {
  await fs.mkdir(path.dirname(journalFile(dataDir)), { recursive: true });
  await fs.writeFile(journalFile(dataDir), typeof intent === 'string' ? intent : `${JSON.stringify(intent, null, 2)}\n`);
}
