import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { listHistory } from '../history/history.js';
import { openShadowRepo } from '../history/shadow-repo.js';
import { exportProject, importArchive, importedHistories, planImport, undoMerge } from './index.js';
import { readTar, writeTar } from './tar.js';
import { addMemories, addSession, git, makeRepo, topic } from './test-support/moved-project.js';

let tmp: string;
let home: string;
let dataDir: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-export-')));
  home = path.join(tmp, 'home');
  dataDir = path.join(tmp, 'data');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function project(name: string, files: Record<string, string>): Promise<{ dir: string; memoryDir: string }> {
  const dir = path.join(tmp, name);
  await makeRepo(dir);
  await addSession(home, dir);
  return { dir, memoryDir: await addMemories(home, dir, files) };
}

describe('export and import (issue 18, item 6)', () => {
  it('writes one tar a person can read with tar, holding a manifest, the memories, agent memory and the history bundle', async () => {
    const { dir } = await project('shop', {
      'MEMORY.md': '- [SQL](feedback_sql.md) — by hand\n',
      'feedback_sql.md': topic('SQL', 'feedback', 'by hand'),
      'team/MEMORY.md': '- [CI](ci.md) — ci\n',
      'team/ci.md': topic('CI', 'project', 'ci'),
      'retros/项目.md': topic('回顾', 'project', '中文'),
    });
    await fs.mkdir(path.join(dir, '.claude', 'agent-memory-local', 'reviewer'), { recursive: true });
    await fs.writeFile(path.join(dir, '.claude', 'agent-memory-local', 'reviewer', 'notes.md'), 'terse\n');
    const file = path.join(tmp, 'shop.memdir.tar');
    const result = await exportProject({ home, dataDir }, dir, file);
    expect(result).toMatchObject({ files: 6, history: true });
    const listed = execFileSync('tar', ['tf', file], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l && !l.endsWith('/'))
      .sort();
    expect(listed).toEqual(
      [
        'memdir-export/agents/local/reviewer/notes.md',
        'memdir-export/history/memory.bundle',
        'memdir-export/manifest.json',
        'memdir-export/memory/MEMORY.md',
        'memdir-export/memory/feedback_sql.md',
        'memdir-export/memory/retros/项目.md',
        'memdir-export/memory/team/MEMORY.md',
        'memdir-export/memory/team/ci.md',
      ].sort(),
    );
    const out = path.join(tmp, 'x');
    await fs.mkdir(out);
    execFileSync('tar', ['xf', file, '-C', out]);
    const manifest = JSON.parse(await fs.readFile(path.join(out, 'memdir-export/manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'memdir-export', version: 1, project: { path: dir, identity: { remotes: ['github.com/acme/shop'] } } });
    expect(git(out, 'bundle', 'list-heads', path.join(out, 'memdir-export/history/memory.bundle'))).toMatch(/HEAD/);
    await expect(exportProject({ home, dataDir }, dir, file)).rejects.toThrow(/already exists/);
  });

  it('imports into another project through the merge, keeps the exported history, and undoes in one step', async () => {
    const { dir } = await project('shop', {
      'MEMORY.md': '- [SQL](feedback_sql.md) — by hand\n- [New](new.md) — new\n',
      'feedback_sql.md': topic('SQL', 'feedback', 'by hand'),
      'new.md': topic('New', 'user', 'new'),
    });
    const file = path.join(tmp, 'shop.tar');
    await exportProject({ home, dataDir }, dir, file);
    // Another machine: the same repository cloned elsewhere, with its own memory.
    const other = path.join(tmp, 'laptop', 'shop');
    await fs.mkdir(path.dirname(other), { recursive: true });
    git(tmp, 'clone', '-q', dir, other);
    git(other, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
    const otherMemory = await addMemories(home, other, {
      'MEMORY.md': '- [SQL](feedback_sql.md) — by hand\n',
      'feedback_sql.md': topic('SQL', 'feedback', 'by hand'),
    });
    const { plan } = await planImport({ home, dataDir }, file, other);
    expect(plan.evidence).toEqual(['same-remote', 'same-root-commit', 'same-name']);
    expect(plan.files.map((f) => `${f.file}:${f.action}`).sort()).toEqual(['MEMORY.md:index', 'feedback_sql.md:same', 'new.md:add']);
    const record = await importArchive({ home, dataDir }, file, other);
    expect(await fs.readFile(path.join(otherMemory, 'MEMORY.md'), 'utf8')).toBe('- [SQL](feedback_sql.md) — by hand\n- [New](new.md) — new\n');
    const [entry] = await listHistory(otherMemory, { dataDir });
    expect(entry).toMatchObject({ source: 'import', summary: 'Imported from shop.tar' });
    // The history the memories had before is kept beside the new one.
    const repo = (await openShadowRepo(otherMemory, dataDir))!;
    expect(git(tmp, '--git-dir', repo.gitDir, 'log', '--format=%s', `refs/memdir/imports/${record.id}`)).toMatch(/Changes made outside Memdir/);
    await undoMerge(dataDir, record.id);
    expect((await fs.readdir(otherMemory)).sort()).toEqual(['MEMORY.md', 'feedback_sql.md']);
    // Its history stays, marked undone; one an earlier Memdir undone (its ref left in place) is marked when listed.
    const refs = () => git(tmp, '--git-dir', repo.gitDir, 'for-each-ref', '--format=%(refname)', 'refs/memdir/').trim();
    expect(refs()).toBe(`refs/memdir/undone-imports/${record.id}`);
    git(tmp, '--git-dir', repo.gitDir, 'update-ref', `refs/memdir/imports/${record.id}`, `refs/memdir/undone-imports/${record.id}`);
    git(tmp, '--git-dir', repo.gitDir, 'update-ref', '-d', `refs/memdir/undone-imports/${record.id}`);
    expect((await importedHistories(otherMemory, { dataDir })).map((h) => [h.id, h.undone])).toEqual([[record.id, true]]);
    expect(refs()).toBe(`refs/memdir/undone-imports/${record.id}`);
    expect(await fs.readFile(path.join(otherMemory, 'MEMORY.md'), 'utf8')).toBe('- [SQL](feedback_sql.md) — by hand\n');
    expect(sanitizeDirName(other)).toBe(record.plan.target.dir);
  });

  it('carries the agent memory of the directories the sessions start in, and puts it back at the same place under the new root', async () => {
    // Claude Code 2.1.332 launched in shop/app keeps its local agent memory in shop/app/.claude/ (never committed).
    const dir = path.join(tmp, 'shop');
    await makeRepo(dir);
    for (const sub of ['app', 'app', 'tools']) await fs.mkdir(path.join(dir, sub), { recursive: true });
    await addSession(home, path.join(dir, 'app'));
    await addSession(home, path.join(dir, 'app'), '0b0e3f5c-2222-4111-8111-111111111111');
    await addSession(home, path.join(dir, 'tools'), '0b0e3f5c-3333-4111-8111-111111111111');
    await addMemories(home, dir, { 'a.md': topic('A', 'user', 'a') });
    const agentFile = (root: string, sub: string, type: string, name: string) => path.join(root, sub, '.claude', 'agent-memory-local', type, name);
    for (const [sub, type, name] of [
      ['app', 'reviewer', 'MEMORY.md'],
      ['tools', 'helper', 'notes.md'],
      ['', 'root-agent', 'notes.md'],
    ] as const) {
      await fs.mkdir(path.dirname(agentFile(dir, sub, type, name)), { recursive: true });
      await fs.writeFile(agentFile(dir, sub, type, name), `${sub || 'root'} ${type}\n`);
    }
    const file = path.join(tmp, 'shop.tar');
    const result = await exportProject({ home, dataDir }, dir, file);
    expect(result).toMatchObject({ exported: true, files: 4 });
    const listed = execFileSync('tar', ['tf', file], { encoding: 'utf8' }).split('\n');
    expect(listed).toEqual(
      expect.arrayContaining([
        'memdir-export/agents-in/app/local/reviewer/MEMORY.md',
        'memdir-export/agents-in/tools/local/helper/notes.md',
        'memdir-export/agents/local/root-agent/notes.md',
      ]),
    );
    // Another machine: a fresh clone whose sessions start in app/ too; it has no tools/.
    const home2 = path.join(tmp, 'home2');
    const dir2 = path.join(tmp, 'elsewhere', 'shop');
    await makeRepo(dir2);
    await fs.mkdir(path.join(dir2, 'app'));
    await addSession(home2, path.join(dir2, 'app'));
    const ctx2 = { home: home2, dataDir: path.join(tmp, 'data2') };
    const { plan } = await planImport(ctx2, file, dir2);
    expect(plan.warnings.join(' ')).toContain(
      `The local agent memory of helper (kept in tools/ by the sessions started there) is not imported: ${path.join(dir2, 'tools')} is not a folder on this machine.`,
    );
    await importArchive(ctx2, file, dir2);
    expect(await fs.readFile(agentFile(dir2, 'app', 'reviewer', 'MEMORY.md'), 'utf8')).toBe('app reviewer\n');
    expect(await fs.readFile(agentFile(dir2, '', 'root-agent', 'notes.md'), 'utf8')).toBe('root root-agent\n');
    await expect(fs.access(path.join(dir2, 'tools'))).rejects.toThrow();
    await expect(fs.access(path.join(dir2, '.claude', 'agent-memory-local', 'reviewer'))).rejects.toThrow();
  });

  it('names the agent memory of a linked worktree the sessions start in, which an archive cannot carry', async () => {
    const { dir } = await project('shop', { 'a.md': topic('A', 'user', 'a') });
    const wt = path.join(tmp, 'shop-wt');
    git(dir, 'worktree', 'add', '-q', wt);
    await addSession(home, wt, '0b0e3f5c-4444-4111-8111-111111111111');
    await fs.mkdir(path.join(wt, '.claude', 'agent-memory-local', 'reviewer'), { recursive: true });
    await fs.writeFile(path.join(wt, '.claude', 'agent-memory-local', 'reviewer', 'MEMORY.md'), '- terse\n');
    const result = await exportProject({ home, dataDir }, dir, path.join(tmp, 'shop.tar'));
    expect(result).toMatchObject({
      exported: true,
      files: 1,
      warnings: [
        `The agent memory in ${path.join(wt, '.claude')} (sessions started there, outside ${dir}) is not in the archive: it carries only what is under the project's root.`,
      ],
    });
  });

  it('names an agent memory folder that is a symbolic link, which the archive does not carry', async () => {
    const { dir } = await project('shop', { 'a.md': topic('A', 'user', 'a') });
    const kept = path.join(tmp, 'dotfiles', 'reviewer');
    await fs.mkdir(kept, { recursive: true });
    await fs.writeFile(path.join(kept, 'notes.md'), 'terse\n');
    const local = path.join(dir, '.claude', 'agent-memory-local');
    await fs.mkdir(local, { recursive: true });
    await fs.symlink(kept, path.join(local, 'reviewer'));
    const result = await exportProject({ home, dataDir }, dir, path.join(tmp, 'shop.tar'));
    expect(result).toMatchObject({
      exported: true,
      files: 1,
      warnings: [
        `The agent memory of reviewer in ${path.join(local, 'reviewer')} is a symbolic link to ${kept}: it is not in the archive, as Memdir never follows a link with your files; copy what it leads to by hand if you want it there.`,
      ],
    });
  });

  /** A good export of a project, and `archiveWith(name)`: it with one more file listed in its manifest (a hostile archive). */
  async function hostileArchives(): Promise<(name: string) => Promise<string>> {
    const { dir } = await project('shop', { 'a.md': topic('A', 'user', 'a') });
    const good = path.join(tmp, 'good.tar');
    await exportProject({ home, dataDir }, dir, good);
    const entries = readTar(await fs.readFile(good));
    const manifestEntry = entries.find((e) => e.name.endsWith('manifest.json'))!;
    let n = 0;
    return async (name: string) => {
      const data = Buffer.from('---\nname: P\ndescription: p\ntype: project\n---\npwn\n');
      const manifest = JSON.parse(manifestEntry.data.toString('utf8'));
      manifest.files.push({ path: name, sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length });
      const bad = path.join(tmp, `bad-${n++}.tar`);
      await fs.writeFile(
        bad,
        writeTar([
          ...entries.map((e) => (e === manifestEntry ? { ...e, data: Buffer.from(JSON.stringify(manifest)) } : e)),
          { name: `memdir-export/${name}`, data },
        ]),
      );
      return bad;
    };
  }

  it('refuses an archive whose agent memory would land outside the project', async () => {
    const archiveWith = await hostileArchives();
    const target = path.join(tmp, 'target');
    await makeRepo(target);
    for (const where of ['..%2F..%2Fetc', '%2Fetc', '%2E', '%2E%2E', 'a%2F..%2F..']) {
      await expect(importArchive({ home, dataDir }, await archiveWith(`agents-in/${where}/local/x/notes.md`), target), where).rejects.toThrow(
        /which is neither a memory nor an agent memory.*Nothing was written\.$/,
      );
    }
  });

  it('never writes agent memory through a link out of the target, into .git, or under an agent type name Claude Code never makes (review x4 F2)', async () => {
    const archiveWith = await hostileArchives();
    const target = path.join(tmp, 'target');
    await makeRepo(target);
    const outside = path.join(tmp, 'outside');
    await fs.mkdir(outside);
    await fs.symlink(outside, path.join(target, 'link'));
    const ctx = { home, dataDir };
    const before = await fs.readdir(path.join(target, '.git'));
    // A folder of the target that is a link leading out: that agent memory is not imported, and the rest is.
    const linked = await importArchive(ctx, await archiveWith('agents-in/link/local/pwn/PWNED.md'), target);
    expect(linked.plan.warnings.join(' ')).toContain(
      `The local agent memory of pwn (kept in link/ by the sessions started there) is not imported: ${path.join(target, 'link')} is a symbolic link, and Memdir never writes through a link.`,
    );
    expect(await fs.readdir(outside)).toEqual([]);
    await undoMerge(dataDir, linked.id);
    // .git, and a type name that is no folder name Claude Code gives an agent: the archive is refused whole.
    for (const name of [
      'agents-in/.git/local/pwn/x.md',
      'agents-in/app%2F.git/local/pwn/x.md',
      'agents-in/.GIT/local/pwn/x.md',
      'agents/local/%2E%2E/x.md',
      'agents/local/..%2F..%2F..%2FPWNED7/x.md',
      'agents/project/a.b/x.md',
    ]) {
      await expect(importArchive(ctx, await archiveWith(name), target), name).rejects.toThrow(
        /which is neither a memory nor an agent memory.*Nothing was written\.$/,
      );
    }
    expect(await fs.readdir(path.join(target, '.git'))).toEqual(before);
    await expect(fs.access(path.join(target, '.claude'))).rejects.toThrow();
  });

  it('leaves out of an export an agent memory folder Claude Code never reads (a name it never makes), and says so', async () => {
    const { dir } = await project('shop', { 'a.md': topic('A', 'user', 'a') });
    const local = path.join(dir, '.claude', 'agent-memory-local');
    for (const type of ['reviewer', 'a.b']) {
      await fs.mkdir(path.join(local, type), { recursive: true });
      await fs.writeFile(path.join(local, type, 'notes.md'), 'n\n');
    }
    const result = await exportProject({ home, dataDir }, dir, path.join(tmp, 'shop.tar'));
    expect(result).toMatchObject({ exported: true });
    expect('warnings' in result && result.warnings).toEqual([
      `The folder ${path.join(local, 'a.b')} is not in the archive: Claude Code names an agent's memory folder with letters, digits, - and _ only, so it never reads this one.`,
    ]);
    const target = path.join(tmp, 'target');
    await makeRepo(target);
    await importArchive({ home, dataDir }, path.join(tmp, 'shop.tar'), target);
    expect(await fs.readdir(path.join(target, '.claude', 'agent-memory-local'))).toEqual(['reviewer']);
  });

  it('refuses a corrupt or foreign archive in a sentence and writes nothing', async () => {
    const target = path.join(tmp, 'target');
    await fs.mkdir(target);
    const ctx = { home, dataDir };
    const cases: [string, Buffer, RegExp][] = [
      ['notes.txt', Buffer.from('hello'), /not a tar archive/],
      ['foreign.tar', writeTar([{ name: 'photos/cat.jpg', data: Buffer.from('jpg') }]), /not a Memdir export/],
      [
        'other-format.tar',
        writeTar([{ name: 'memdir-export/manifest.json', data: Buffer.from('{"format":"something-else","version":3}') }]),
        /not one Memdir writes/,
      ],
      ['traversal.tar', writeTar([{ name: 'memdir-export/../../etc/x', data: Buffer.from('x') }]), /outside the archive/],
    ];
    const good = path.join(tmp, 'good.tar');
    const { dir } = await project('shop', { 'a.md': topic('A', 'user', 'a') });
    await exportProject(ctx, dir, good);
    const bytes = await fs.readFile(good);
    const entries = readTar(bytes);
    const damaged = entries.map((e) => (e.name.endsWith('a.md') ? { ...e, data: Buffer.from('tampered') } : e));
    cases.push(['damaged.tar', writeTar(damaged), /a\.md is damaged/]);
    // A history that is not a bundle, with a manifest that says it is what it is: the SHA-256 matches, git refuses it.
    const manifestEntry = entries.find((e) => e.name.endsWith('manifest.json'))!;
    const manifest = JSON.parse(manifestEntry.data.toString('utf8'));
    const junk = Buffer.from('# v2 git bundle\nnot really\n');
    manifest.history = { ...manifest.history, sha256: createHash('sha256').update(junk).digest('hex'), bytes: junk.length };
    const fakeHistory = entries.map((e) =>
      e === manifestEntry ? { ...e, data: Buffer.from(JSON.stringify(manifest)) } : e.name.endsWith('.bundle') ? { ...e, data: junk } : e,
    );
    cases.push(['bad-bundle.tar', writeTar(fakeHistory), /history is not a readable git bundle/]);
    cases.push([
      'swapped-bundle.tar',
      writeTar(entries.map((e) => (e.name.endsWith('.bundle') ? { ...e, data: junk } : e))),
      /history\/memory\.bundle is damaged/,
    ]);
    const truncated = Buffer.from(bytes.subarray(0, 1024));
    cases.push(['truncated.tar', truncated, /truncated|cut short|end-of-archive/]);
    const flipped = Buffer.from(bytes);
    flipped[10] = flipped[10]! ^ 0xff;
    cases.push(['flipped.tar', flipped, /damaged \(bad checksum\)/]);
    // Refused by its size before it is read (a sparse file: no disk used; past 2 GB, reading it whole would fail with an internal code).
    const huge = path.join(tmp, 'huge.tar');
    await fs.writeFile(huge, '');
    await fs.truncate(huge, 3 * 1024 * 1024 * 1024);
    await expect(importArchive(ctx, huge, target)).rejects.toThrow(/huge\.tar cannot be imported: it is larger than 512 MB\. Nothing was written\.$/);
    for (const [name, data, why] of cases) {
      const file = path.join(tmp, name);
      await fs.writeFile(file, data);
      await expect(importArchive(ctx, file, target), name).rejects.toThrow(why);
      await expect(importArchive(ctx, file, target), name).rejects.toThrow(/Nothing was written\.$/);
    }
    await expect(fs.access(path.join(home, 'projects', sanitizeDirName(target)))).rejects.toThrow();
  });
});
