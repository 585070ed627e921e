/**
 * A person (not root) whose memory folder they may not write (owned by another user, read-only to
 * them): `memdir restore` says so in a sentence — never EACCES or a stack — and loses nothing: the
 * folder is as it was, no temp file is left, and History gains no entry. Run as a real
 * unprivileged user (`setpriv` to nobody) in a child process, as a person runs the command.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './main.js';

const CLI = path.join(import.meta.dirname, 'memdir.ts');

/** Null where a child can run as the unprivileged user `nobody`; else the one-line reason it cannot. */
const asNobodyUnavailable: string | null = (() => {
  if (process.platform !== 'linux') return 'running as another user needs Linux';
  if (process.getuid?.() !== 0) return 'running as another user needs root';
  try {
    const uid = execFileSync('setpriv', ['--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', process.execPath, '-p', 'process.getuid()'], {
      stdio: 'pipe',
    });
    return uid.toString().trim() === '0' ? 'setpriv did not drop root' : null;
  } catch (err) {
    return `cannot run a child as nobody here (${String((err as Error).message).split('\n')[0]})`;
  }
})();

let root: string;
let home: string;
let data: string;
let mem: string;

async function asRoot(...argv: string[]): Promise<string> {
  let out = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: () => undefined, env: { MEMDIR_DATA_DIR: data, CLAUDE_CONFIG_DIR: home }, cwd: root });
  expect(code).toBe(0);
  return out;
}

async function asNobody(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      'setpriv',
      ['--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', process.execPath, '--import', 'tsx', CLI, ...argv],
      {
        cwd: path.resolve(import.meta.dirname, '..', '..'),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, MEMDIR_DATA_DIR: data, CLAUDE_CONFIG_DIR: home },
      },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

async function folder(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(mem)).sort()) out[name] = await fs.readFile(path.join(mem, name), 'utf8');
  return out;
}

describe.skipIf(asNobodyUnavailable !== null)(
  `a save into a folder the user may not write${asNobodyUnavailable ? ` (skipped: ${asNobodyUnavailable})` : ''}`,
  () => {
    beforeAll(async () => {
      root = await fs.mkdtemp(path.join(await fs.realpath(os.tmpdir()), 'memdir-cli-eacces-'));
      await fs.chmod(root, 0o755);
      home = path.join(root, 'claude');
      data = path.join(root, 'data');
      mem = path.join(home, 'projects', '-work-p', 'memory');
      await fs.mkdir(mem, { recursive: true });
      await fs.writeFile(path.join(mem, 'MEMORY.md'), '- [A](a.md) — a\n');
      await fs.writeFile(path.join(mem, 'a.md'), '---\nname: a\ndescription: a\ntype: user\n---\n\nfirst words\n');
    });
    afterAll(async () => {
      await fs.rm(root, { recursive: true, force: true });
    });

    it('memdir restore says permission is denied in words, and the folder, its files and History stay as they were', async () => {
      // Two versions of a.md in History, recorded by root (who owns the memory folder).
      await asRoot('history', '-work-p');
      const first = (JSON.parse(await asRoot('history', '-work-p', '--json')) as { entries: { rev: string }[] }).entries[0]!.rev;
      await fs.writeFile(path.join(mem, 'a.md'), '---\nname: a\ndescription: a\ntype: user\n---\n\nsecond words\n');
      const entries = (JSON.parse(await asRoot('history', '-work-p', '--json')) as { entries: unknown[] }).entries;
      // Memdir's data folder is the person's own; the memory folder stays root's, read-only to them.
      execFileSync('chown', ['-R', 'nobody:nogroup', data]);
      const before = await folder();

      // The edit above was made outside Memdir: asked over (--overwrite-changed), the restore reaches the write it is refused.
      const refused = await asNobody('restore', '-work-p', first, 'a.md', '--overwrite-changed');
      expect(refused.code).not.toBe(0);
      expect(refused.err).toMatch(/permission denied/i);
      expect(refused.err).toMatch(/a\.md|memory/);
      expect(refused.err).not.toMatch(/EACCES|EPERM|Something went wrong|\n\s+at |git /);
      expect(await folder()).toEqual(before);
      expect((await fs.readdir(mem)).filter((n) => n.startsWith('.memdir-tmp-'))).toEqual([]);
      const after = JSON.parse((await asNobody('history', '-work-p', '--json')).out) as { entries: unknown[] };
      expect(after.entries).toEqual(entries);
    });
  },
);
