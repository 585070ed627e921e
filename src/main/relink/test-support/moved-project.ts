/**
 * A Claude Code home with a real git project and its memories (private, team), for relink
 * tests: the project can then be moved on disk, cloned, or re-created with another history.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { sanitizeDirName } from '../../../shared/sanitize.js';
import { git } from '../../memdir/test-support/test-git.js';

export { git };

export const topic = (name: string, type: string, body: string) => `---\nname: ${name}\ndescription: ${name} in one line\ntype: ${type}\n---\n\n${body}\n`;

/** A repository at `dir` with one commit and, unless `remote` is null, an origin. */
export async function makeRepo(dir: string, remote: string | null = 'git@github.com:acme/shop.git', message = 'init'): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  git(dir, 'init', '-q');
  await fs.writeFile(path.join(dir, 'README.md'), `# ${path.basename(dir)}\n`);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  if (remote) git(dir, 'remote', 'add', 'origin', remote);
}

/** A session of Claude Code run in `cwd`: a transcript in the folder of its launch directory. */
export async function addSession(home: string, cwd: string, sessionId = '0b0e3f5c-1111-4111-8111-111111111111'): Promise<void> {
  const folder = path.join(home, 'projects', sanitizeDirName(cwd));
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(
    path.join(folder, `${sessionId}.jsonl`),
    `${JSON.stringify({ type: 'user', uuid: 'u1', cwd, sessionId, timestamp: '2026-11-01T10:00:00Z', message: { role: 'user', content: 'hello' } })}\n`,
  );
}

/** Memories for the project keyed `key`: files relative to its memory dir (`team/x.md` for team ones). */
export async function addMemories(home: string, key: string, files: Record<string, string>): Promise<string> {
  const memoryDir = path.join(home, 'projects', sanitizeDirName(key), 'memory');
  for (const [rel, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
    await fs.writeFile(path.join(memoryDir, rel), text);
  }
  return memoryDir;
}

/**
 * A project moved on disk from `<root>/src/shop` to `<root>/work/shop`, its feedback_sql.md
 * written again at the new place: relinking it keeps one conflict (number 0) on that file.
 */
export async function movedWithOneConflict(home: string, root: string): Promise<{ oldPath: string; newPath: string; newMemory: string }> {
  const oldPath = path.join(root, 'src', 'shop');
  await makeRepo(oldPath);
  await addSession(home, oldPath);
  await addMemories(home, oldPath, { 'feedback_sql.md': topic('SQL', 'feedback', 'by hand') });
  const newPath = path.join(root, 'work', 'shop');
  await fs.mkdir(path.dirname(newPath));
  await fs.rename(oldPath, newPath);
  const newMemory = await addMemories(home, newPath, { 'feedback_sql.md': topic('SQL', 'feedback', 'an ORM after all') });
  return { oldPath, newPath, newMemory };
}

/** Every memory file under `dir` (dotfiles left out, as Memdir leaves them), with its text: what a folder holds, to compare. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (abs: string, rel: string) => {
    for (const e of await fs.readdir(abs, { withFileTypes: true }).catch(() => [])) {
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) await walk(path.join(abs, e.name), `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = await fs.readFile(path.join(abs, e.name), 'utf8');
    }
  };
  await walk(dir, '');
  return out;
}

/** Two clones of one repository (`<root>/a/shop`, `<root>/b/shop`: same remote, same root commit), each with a session in `home`. */
export async function twoClones(root: string, home: string): Promise<{ a: string; b: string }> {
  const a = path.join(root, 'a', 'shop');
  const b = path.join(root, 'b', 'shop');
  await makeRepo(a);
  await fs.mkdir(path.dirname(b), { recursive: true });
  git(root, 'clone', '-q', a, b);
  git(b, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
  for (const p of [a, b]) await addSession(home, p);
  return { a, b };
}
