/**
 * Crafted memory dirs for the dream tests: a real home on a tmp dir with topic files (mtimes
 * set), an index, and transcripts whose lines carry chosen timestamps.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A crafted project: its home, project dir, memory dir and Memdir data dir. */
export interface DreamFixture {
  root: string;
  home: string;
  dir: string;
  projectDir: string;
  memoryDir: string;
  dataDir: string;
  /** Write a file of the memory dir (relative path), optionally with an mtime. */
  write(rel: string, text: string, mtime?: string | number): Promise<void>;
  read(rel: string): Promise<string | null>;
  /** Every file of the memory dir (dotfiles excluded), sorted, with content. */
  files(): Promise<Record<string, string>>;
  /** A transcript `<sessionId>.jsonl` with one user line per entry, optionally with an mtime. */
  transcript(sessionId: string, lines: { at: string; text: string; role?: 'user' | 'assistant' }[], mtime?: string | number): Promise<string>;
  cleanup(): Promise<void>;
}

/** A topic file's text. */
export function topic(fields: { name: string; description: string; type: string; [key: string]: string }, body: string): string {
  const head = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  return `---\n${head}\n---\n\n${body.trim()}\n`;
}

function toDate(t: string | number): Date {
  return typeof t === 'number' ? new Date(t) : new Date(t);
}

/** Creates the fixture under a fresh tmp dir (`mkdtemp`). */
export async function createDreamFixture(prefix = 'memdir-dream-'): Promise<DreamFixture> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  const home = path.join(root, 'home');
  const dir = '-work-app';
  const projectDir = path.join(home, 'projects', dir);
  const memoryDir = path.join(projectDir, 'memory');
  const dataDir = path.join(root, 'data');
  await fs.mkdir(memoryDir, { recursive: true });
  const fixture: DreamFixture = {
    root,
    home,
    dir,
    projectDir,
    memoryDir,
    dataDir,
    async write(rel, text, mtime) {
      const file = path.join(memoryDir, rel);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, text);
      if (mtime !== undefined) await fs.utimes(file, toDate(mtime), toDate(mtime));
    },
    async read(rel) {
      return fs.readFile(path.join(memoryDir, rel), 'utf8').catch(() => null);
    },
    async files() {
      const out: Record<string, string> = {};
      const walk = async (dirPath: string, prefixRel: string): Promise<void> => {
        for (const entry of await fs.readdir(dirPath, { withFileTypes: true })) {
          if (entry.name.startsWith('.')) continue;
          const rel = prefixRel ? `${prefixRel}/${entry.name}` : entry.name;
          if (entry.isDirectory()) await walk(path.join(dirPath, entry.name), rel);
          else out[rel] = await fs.readFile(path.join(dirPath, entry.name), 'utf8');
        }
      };
      await walk(memoryDir, '');
      return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    },
    async transcript(sessionId, lines, mtime) {
      const file = path.join(projectDir, `${sessionId}.jsonl`);
      const text = lines
        .map((l, i) =>
          JSON.stringify({
            type: l.role ?? 'user',
            uuid: `${sessionId}-${i}`,
            parentUuid: i === 0 ? null : `${sessionId}-${i - 1}`,
            sessionId,
            cwd: '/work/app',
            message:
              l.role === 'assistant' ? { id: `msg_${i}`, role: 'assistant', content: [{ type: 'text', text: l.text }] } : { role: 'user', content: l.text },
            timestamp: l.at,
          }),
        )
        .join('\n');
      await fs.writeFile(file, `${text}\n`);
      if (mtime !== undefined) await fs.utimes(file, toDate(mtime), toDate(mtime));
      return file;
    },
    async cleanup() {
      await fs.rm(root, { recursive: true, force: true });
    },
  };
  return fixture;
}
