/**
 * What a Memdir killed between the two folders of `memdir merge undo <id>` leaves on disk, made
 * without a kill so a test of the front doors (the CLI, the app) is exact: the undo written in the
 * first folder the record names (a `restore` entry, as undoMerge's step writes), not in the second,
 * and the turn's intent still in the data folder. turn-crash.test.ts makes the same with real kills.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { MergeRecord } from '../../../shared/contract/identity.js';
import { headRevision } from '../../history/index.js';
import { undoChange } from '../../memdir/index.js';
import { journalFile, type TurnIntent } from '../turn-as-one.js';

export async function undoKilledBetweenFolders(dataDir: string, record: MergeRecord): Promise<void> {
  const first = record.touched[0]!;
  const intent: TurnIntent = {
    op: 'turn',
    id: record.id,
    kind: record.kind,
    what: `undoing ${record.kind} ${record.id}`,
    source: 'restore',
    folders: record.touched.map((t) => t.memoryDir),
    heads: [{ memoryDir: first.memoryDir, head: await headRevision(first.memoryDir, { dataDir }), files: first.files }],
    recordState: 'made',
    startedAt: new Date().toISOString(),
    pid: 2 ** 22 + 1,
  };
  await leaveIntent(dataDir, intent);
  await undoChange({ memoryDir: first.memoryDir, dataDir, rev: first.rev });
}

/** The intent a killed turn leaves in the data folder, as given. */
export async function leaveIntent(dataDir: string, intent: TurnIntent | string): Promise<void> {
  await fs.mkdir(path.dirname(journalFile(dataDir)), { recursive: true });
  await fs.writeFile(journalFile(dataDir), typeof intent === 'string' ? intent : `${JSON.stringify(intent, null, 2)}\n`);
}

/**
 * What a Memdir killed inside the first folder of `memdir merge undo <id>` leaves: its intent, and
 * that folder's files written as the undo writes them (the moved memory gone, its pointer line
 * out), the entry not yet recorded.
 */
export async function undoKilledInsideFirstFolder(dataDir: string, record: MergeRecord): Promise<void> {
  const first = record.touched[0]!;
  await leaveIntent(dataDir, {
    op: 'turn',
    id: record.id,
    kind: record.kind,
    what: `undoing ${record.kind} ${record.id}`,
    source: 'restore',
    folders: record.touched.map((t) => t.memoryDir),
    heads: [{ memoryDir: first.memoryDir, head: await headRevision(first.memoryDir, { dataDir }), files: first.files }],
    recordState: 'made',
    startedAt: new Date().toISOString(),
    pid: 2 ** 22 + 1,
  });
  for (const file of first.files) await fs.rm(path.join(first.memoryDir, file), { force: true });
}
