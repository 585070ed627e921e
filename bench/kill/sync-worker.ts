/**
 * Child process of the `kill` bench: edits team files the way an editor saves (a temp file, then
 * a rename) and syncs after each edit, in a loop, until SIGKILLed. Appends `intend <key> <sha>`
 * before an edit and `edit <key> <sha>` after it to a log, so the bench knows which contents a
 * file may hold and which edits must not be lost. Prints "ready" once loaded; starts on stdin.
 *   sync-worker.ts <dataDir> <memoryDir> <token> <log>
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { AlertCenter } from '../../src/main/team/alert-center.js';
import { ConnectionStore } from '../../src/main/team/connections.js';
import { TeamSync } from '../../src/main/team/team-sync.js';

const [dataDir = '', memoryDir = '', token = '', logPath = ''] = process.argv.slice(2);
const connection = await new ConnectionStore(dataDir).forMemoryDir(memoryDir);
if (!connection) throw new Error('no connection');
const sync = await TeamSync.open({
  connection,
  token,
  dataDir,
  dir: connection.dir,
  alerts: new AlertCenter(dataDir),
  retry: { attempts: 8, baseMs: 5, maxMs: 60 },
});
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
for (let step = 0; ; step++) {
  const key = `project_note_${Math.floor(Math.random() * 5)}.md`;
  const text = `---\nname: Note\ndescription: edited by ${process.pid} at step ${step}\ntype: project\n---\n\n${randomBytes(Math.floor(Math.random() * 3_000)).toString('hex')}\n`;
  const file = path.join(memoryDir, 'team', key);
  fs.appendFileSync(logPath, `intend ${key} ${sha(text)}\n`);
  fs.writeFileSync(`${file}.editor-tmp`, text);
  fs.renameSync(`${file}.editor-tmp`, file);
  fs.appendFileSync(logPath, `edit ${key} ${sha(text)}\n`);
  await sync.sync();
}
