/**
 * Child process for the crash test: writes memories in a loop through `transact` +
 * `writeFileAtomic` until it is SIGKILLed. Each step creates a topic file or rewrites existing
 * ones, and rewrites the index. Before and after each write it appends `intend|done <file>
 * <sha256>` to a log, so the parent knows which contents a file may legitimately hold.
 * Prints "ready" once its modules are loaded, and starts when a line arrives on stdin (so the
 * parent can start the next writer while it checks what the last one left). Prints "committed"
 * each time a step's history commit has returned.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import { transact } from '../history.js';
import { writeFileAtomic } from '../../core/safe-fs.js';

const [memoryDir = '', dataDir = '', logPath = ''] = process.argv.slice(2);

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** A topic file of a few hundred bytes to ~16 KB: several pages, so a torn write would show. */
function topic(file: string): string {
  const padding = randomBytes(Math.floor(Math.random() * 8_000)).toString('hex');
  return `---\nname: ${file}\ndescription: written by pid ${process.pid}\ntype: project\n---\n\n${padding}\n`;
}

function topicFiles(): string[] {
  return fs
    .readdirSync(memoryDir)
    .filter((name) => name.startsWith('topic-'))
    .sort();
}

process.stdout.write('ready\n');
await once(process.stdin, 'data');
for (let step = 0; ; step++) {
  const existing = topicFiles();
  const writes: string[] = [];
  if (existing.length < 4 || Math.random() < 0.3) writes.push(`topic-${process.pid}-${step}.md`);
  if (existing.length > 0) writes.push(pick(existing));
  if (existing.length > 1 && Math.random() < 0.3) writes.push(pick(existing));
  await transact(memoryDir, { source: 'manual', summary: `Step ${step} of ${process.pid}`, dataDir }, async () => {
    for (const file of [...new Set(writes)]) {
      const text = topic(file);
      fs.appendFileSync(logPath, `intend ${file} ${sha(text)}\n`);
      await writeFileAtomic(memoryDir, file, text);
      fs.appendFileSync(logPath, `done ${file} ${sha(text)}\n`);
    }
    const index = topicFiles()
      .map((name) => `- [${name}](${name}) — step ${step}`)
      .join('\n');
    const text = `${index}\n`;
    fs.appendFileSync(logPath, `intend MEMORY.md ${sha(text)}\n`);
    await writeFileAtomic(memoryDir, 'MEMORY.md', text);
    fs.appendFileSync(logPath, `done MEMORY.md ${sha(text)}\n`);
  });
  process.stdout.write('committed\n');
}
