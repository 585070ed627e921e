import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { listHistory, recordExternalChanges } from '../history/history.js';
import { predictBuiltIndex } from '../memdir/index.js';
import { scanHome } from '../memdir/scan-home.js';
import { ConnectionStore } from '../team/connections.js';
import {
  cloneGroups,
  conflictSides,
  findOrphans,
  keepApart,
  mergeProjects,
  planRelink,
  readKeptApart,
  relink,
  resolveMergeConflict,
  shownMergePlan,
  undoMerge,
} from './index.js';
import { addMemories, addSession, git, makeRepo, readTree, topic } from './test-support/moved-project.js';

let tmp: string;
let home: string;
let dataDir: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-relink-')));
  home = path.join(tmp, 'home');
  dataDir = path.join(tmp, 'data');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const INDEX = '# Memory\n- [No ORM](feedback_sql.md) — write SQL by hand\n- [Deploys](project_deploys.md) — no Friday deploys\n';
const MEMORIES = {
  'MEMORY.md': INDEX,
  'feedback_sql.md': topic('No ORM', 'feedback', 'Write SQL by hand.'),
  'project_deploys.md': topic('Deploys', 'project', 'No deploys on Fridays.'),
  'team/MEMORY.md': '- [CI](project_ci.md) — CI has no Python 3.8\n',
  'team/project_ci.md': topic('CI', 'project', 'CI dropped Python 3.8.'),
};

/** A clone of `from` at `to` (its parent made), its origin set as the original's: same identity. */
async function cloneTo(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true });
  git(tmp, 'clone', '-q', from, to);
  git(to, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
}

/** Two live clones of one repository, a/shop and b/shop, each with a session: what a clone merge takes. */
async function twoClones(): Promise<{ a: string; b: string }> {
  const a = path.join(tmp, 'a', 'shop');
  await makeRepo(a);
  const b = path.join(tmp, 'b', 'shop');
  await cloneTo(a, b);
  for (const p of [a, b]) await addSession(home, p);
  return { a, b };
}

/** A project with memories that Memdir has seen, then moved on disk. */
async function movedProject(): Promise<{ oldPath: string; newPath: string; oldMemory: string }> {
  const oldPath = path.join(tmp, 'src', 'shop');
  await makeRepo(oldPath);
  await addSession(home, oldPath);
  const oldMemory = await addMemories(home, oldPath, MEMORIES);
  await fs.mkdir(path.join(oldPath, '.claude', 'agent-memory-local', 'reviewer'), { recursive: true });
  await fs.writeFile(path.join(oldPath, '.claude', 'agent-memory-local', 'reviewer', 'MEMORY.md'), '- [Style](style.md) — terse reviews\n');
  // Memdir sees the project where it is (and remembers its identity).
  await scanHome(home, { dataDir });
  const newPath = path.join(tmp, 'work', 'shop-renamed');
  await fs.mkdir(path.dirname(newPath), { recursive: true });
  await fs.rename(oldPath, newPath);
  return { oldPath, newPath, oldMemory };
}

describe('orphans (issue 18, item 2)', () => {
  it("finds a moved project's memory orphaned, with its new place found in a folder the user gives and the evidence", async () => {
    const { oldPath, newPath } = await movedProject();
    const report = await findOrphans(home, { dataDir, lookIn: [path.join(tmp, 'work')] });
    expect(report.orphans).toHaveLength(1);
    const orphan = report.orphans[0]!;
    expect(orphan).toMatchObject({ dir: sanitizeDirName(oldPath), paths: [oldPath], memories: { private: 2, team: 1 } });
    expect(orphan.memories.files).toEqual(['feedback_sql.md', 'project_deploys.md', 'team/project_ci.md']);
    expect(orphan.lastActivityMs).toBeGreaterThan(0);
    expect(orphan.candidates).toEqual([
      expect.objectContaining({
        path: newPath,
        evidence: ['same-remote', 'same-root-commit'],
        origin: 'given',
        dir: sanitizeDirName(newPath),
        memories: 0,
        claimedBy: [],
      }),
    ]);
  });

  it('finds the new place in the transcripts of sessions run there, and in a Settings workspace', async () => {
    const { newPath } = await movedProject();
    await addSession(home, newPath, '0b0e3f5c-2222-4222-8222-222222222222');
    const fromSessions = await findOrphans(home, { dataDir });
    expect(fromSessions.orphans[0]!.candidates.map((c) => [c.path, c.origin])).toEqual([[newPath, 'transcripts']]);
    await fs.rm(path.join(home, 'projects', sanitizeDirName(newPath)), { recursive: true });
    const fromWorkspace = await findOrphans(home, { dataDir, workspaces: [tmp] });
    expect(fromWorkspace.orphans[0]!.candidates.map((c) => [c.path, c.origin])).toEqual([[newPath, 'workspace']]);
    expect(fromWorkspace.searched.folders).toBeGreaterThan(1);
  });

  it('does not take a project that still exists, or a memory folder whose path is still there without transcripts, for an orphan', async () => {
    const live = path.join(tmp, 'live');
    await makeRepo(live);
    await addSession(home, live);
    await addMemories(home, live, { 'a.md': topic('A', 'user', 'a') });
    const noTranscripts = path.join(tmp, 'quiet_project');
    await fs.mkdir(noTranscripts);
    await addMemories(home, noTranscripts, { 'b.md': topic('B', 'user', 'b') });
    expect((await findOrphans(home, { dataDir })).orphans).toEqual([]);
    await fs.rm(noTranscripts, { recursive: true });
    expect((await findOrphans(home, { dataDir })).orphans.map((o) => o.dir)).toEqual([sanitizeDirName(noTranscripts)]);
  });
});

describe('relink (issue 18, item 3)', () => {
  it('moves every memory to the directory Claude Code now reads, with one history entry in each, and one undo puts all back', async () => {
    const { oldPath, newPath, oldMemory } = await movedProject();
    const newMemory = path.join(home, 'projects', sanitizeDirName(newPath), 'memory');
    const transcript = path.join(home, 'projects', sanitizeDirName(oldPath), '0b0e3f5c-1111-4111-8111-111111111111.jsonl');
    const transcriptBefore = await fs.readFile(transcript, 'utf8');
    const { plan } = await planRelink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    expect(plan.blockers).toEqual([]);
    expect(plan.evidence).toEqual(['same-remote', 'same-root-commit']);
    expect(plan.files.filter((f) => f.action === 'add').map((f) => `${f.area}:${f.file}`)).toEqual([
      'private:MEMORY.md',
      'private:feedback_sql.md',
      'private:project_deploys.md',
      'team:MEMORY.md',
      'team:project_ci.md',
    ]);
    // The preview wrote nothing.
    await expect(fs.access(newMemory)).rejects.toThrow();

    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    expect(await readTree(newMemory)).toEqual(MEMORIES);
    expect(await readTree(oldMemory)).toEqual({});
    // Claude Code's own data is not rewritten.
    expect(await fs.readFile(transcript, 'utf8')).toBe(transcriptBefore);
    const [toEntry] = await listHistory(newMemory, { dataDir });
    const [fromEntry] = await listHistory(oldMemory, { dataDir });
    expect(toEntry).toMatchObject({ source: 'relink', summary: expect.stringContaining(`Relinked from projects/${sanitizeDirName(oldPath)}`) });
    expect(fromEntry).toMatchObject({ source: 'relink', summary: expect.stringContaining('Moved to') });
    expect(fromEntry!.files.every((f) => f.status === 'deleted')).toBe(true);
    expect(record.touched.map((t) => t.memoryDir)).toEqual([newMemory, oldMemory]);
    // The orphan is no longer listed: it holds nothing.
    expect((await findOrphans(home, { dataDir })).orphans).toEqual([]);

    await undoMerge(dataDir, record.id);
    expect(await readTree(oldMemory)).toEqual(MEMORIES);
    expect(await readTree(newMemory)).toEqual({});
    // The project folder the relink created is gone too: no empty project left for scan to list.
    await expect(fs.access(path.dirname(newMemory))).rejects.toThrow();
    expect((await scanHome(home, { dataDir })).projects.map((p) => p.dir)).not.toContain(sanitizeDirName(newPath));
    await expect(undoMerge(dataDir, record.id)).rejects.toThrow(/already undone/);
  });

  it('merges into a directory that has memories: identical files once, a different file kept as a conflict, index lines under the cut', async () => {
    const { oldPath, newPath } = await movedProject();
    const newMemory = await addMemories(home, newPath, {
      'MEMORY.md': '- [No ORM](feedback_sql.md) — write SQL by hand\n- [Deploys](project_deploys.md) — changed here\n',
      'feedback_sql.md': MEMORIES['feedback_sql.md'],
      'project_deploys.md': topic('Deploys', 'project', 'Deploys on Fridays are fine now.'),
    });
    await fs.writeFile(path.join(home, 'projects', sanitizeDirName(oldPath), 'memory', 'user_role.md'), topic('Role', 'user', 'Backend engineer.'));
    await fs.appendFile(path.join(home, 'projects', sanitizeDirName(oldPath), 'memory', 'MEMORY.md'), '- [Role](user_role.md) — backend engineer\n');
    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    const after = await readTree(newMemory);
    expect(after['project_deploys.md']).toContain('fine now');
    expect(after['user_role.md']).toContain('Backend engineer');
    expect(after['MEMORY.md']).toBe(
      '- [No ORM](feedback_sql.md) — write SQL by hand\n- [Deploys](project_deploys.md) — changed here\n- [Role](user_role.md) — backend engineer\n',
    );
    expect(record.plan.files).toContainEqual({ area: 'private', file: 'feedback_sql.md', action: 'same' });
    expect(record.conflicts).toEqual([expect.objectContaining({ n: 0, file: 'project_deploys.md', status: 'open' })]);
    const sides = await conflictSides(dataDir, record.id, 0);
    expect(sides.moved).toContain('No deploys on Fridays');
    expect(sides.here).toContain('fine now');
    const resolved = await resolveMergeConflict(dataDir, record.id, 0, 'both');
    expect(resolved.conflicts[0]).toMatchObject({ status: 'resolved', resolution: 'both' });
    const both = await fs.readFile(path.join(newMemory, 'project_deploys.md'), 'utf8');
    expect(both).toContain('No deploys on Fridays.');
    expect(both).toContain('fine now');
    expect(both.match(/^name: Deploys$/gm)).toHaveLength(1);
    // One order: the app's merge editor starts from the very text --keep both writes, the version here first.
    expect(sides.both).toBe(both);
    expect(both.indexOf('fine now')).toBeLessThan(both.indexOf('No deploys on Fridays.'));
    // The resolution came after: one undo now would throw that work away, so it refuses and writes nothing.
    await expect(undoMerge(dataDir, record.id)).rejects.toThrow(/changed there since — .*project_deploys\.md\. Put it back first/);
    expect(await fs.readFile(path.join(newMemory, 'project_deploys.md'), 'utf8')).toBe(both);
  });

  it('warns when the team memory it moves syncs with a server (the next pull would bring it back)', async () => {
    const { oldPath, newPath, oldMemory } = await movedProject();
    await new ConnectionStore(dataDir).save({
      memoryDir: oldMemory,
      dir: sanitizeDirName(oldPath),
      server: 'https://memdir.example.com',
      team: 'acme',
      member: 'alice',
      tokenId: 'mdt_0000000000000000',
      connectedAt: '2026-12-01T00:00:00Z',
      pullIntervalSec: 60,
    });
    const { plan } = await planRelink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    expect(plan.warnings.join(' ')).toMatch(/syncs with https:\/\/memdir\.example\.com \(team acme\): connect the new place/);
  });

  /**
   * Shop, its sessions started in `sub` ('' for the root) with local agent memory `files` there
   * recorded by Memdir's history; then deleted (local agent memory is never committed) and cloned
   * again elsewhere: the old path and the fresh clone.
   */
  async function deletedAndClonedAfresh(sub: string, files: Record<string, string>): Promise<{ oldPath: string; fresh: string }> {
    const oldPath = path.join(tmp, 'src', 'shop');
    await makeRepo(oldPath);
    if (sub) {
      await fs.mkdir(path.join(oldPath, sub));
      await fs.writeFile(path.join(oldPath, sub, 'main.ts'), '\n');
      git(oldPath, 'add', '-A');
      git(oldPath, 'commit', '-q', '-m', sub);
    }
    await addSession(home, path.join(oldPath, sub));
    await addMemories(home, oldPath, { 'a.md': topic('A', 'user', 'a') });
    const agentDir = path.join(oldPath, sub, '.claude', 'agent-memory-local', 'reviewer');
    await fs.mkdir(agentDir, { recursive: true });
    for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(agentDir, name), text);
    await recordExternalChanges(agentDir, { dataDir });
    await scanHome(home, { dataDir });
    const fresh = path.join(tmp, 'fresh', 'shop');
    await cloneTo(oldPath, fresh);
    await fs.rm(oldPath, { recursive: true });
    return { oldPath, fresh };
  }

  it('brings back the local agent memory of a repository that was deleted and cloned afresh, from what history recorded of it', async () => {
    const files = { 'MEMORY.md': '- [Style](style.md) — terse\n', 'style.md': 'terse reviews\n' };
    const { oldPath, fresh } = await deletedAndClonedAfresh('', files);
    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), fresh);
    expect(record.plan.files).toContainEqual({ area: 'agent:local:reviewer', file: 'style.md', action: 'add' });
    expect(await readTree(path.join(fresh, '.claude', 'agent-memory-local', 'reviewer'))).toEqual(files);
    const [entry] = await listHistory(path.join(fresh, '.claude', 'agent-memory-local', 'reviewer'), { dataDir });
    expect(entry).toMatchObject({ source: 'relink' });
  });

  it('brings back the local agent memory of app/, where the sessions of a deleted repository started, into app/ of the fresh clone', async () => {
    const { oldPath, fresh } = await deletedAndClonedAfresh('app', { 'MEMORY.md': '- terse\n' });
    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), fresh);
    expect(record.plan.files).toContainEqual({ area: 'agent:local:reviewer@app', file: 'MEMORY.md', action: 'add' });
    expect(await readTree(path.join(fresh, 'app', '.claude', 'agent-memory-local', 'reviewer'))).toEqual({ 'MEMORY.md': '- terse\n' });
  });

  it('stops at the cut: index lines that would not be loaded are left out of the index and named', async () => {
    const { oldPath, newPath } = await movedProject();
    const full = Array.from({ length: 199 }, (_, i) => `- [M${i}](m${i}.md) — memory ${i}`).join('\n');
    await addMemories(home, newPath, { 'MEMORY.md': `${full}\n`, 'm0.md': topic('M0', 'user', 'x') });
    const { plan } = await planRelink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    expect(plan.areas.find((a) => a.area === 'private')).toMatchObject({ indexAdded: ['feedback_sql.md'], notInIndex: ['project_deploys.md'] });
    expect(plan.warnings.join(' ')).toMatch(/fall past the cut.*project_deploys\.md.*moved MEMORY\.md is kept as a conflict/);
    expect(plan.files).toContainEqual({ area: 'private', file: 'MEMORY.md', action: 'conflict' });
  });

  it('names index lines of files whose names hold a secret masked wherever a plan is shown: added, past the cut, the warning', async () => {
    const token = ['ghp_', 'Hb3Nq8Ls', 'Tf6Kd2Xm', 'Vr9Mc4Zp', 'Ey7Ug5Ja', 'k1Ko'].join('');
    const added = `reference_${token}.md`;
    const cut = `project_${token}.md`;
    const oldPath = path.join(tmp, 'src', 'shop');
    await makeRepo(oldPath);
    await addSession(home, oldPath);
    await addMemories(home, oldPath, {
      'MEMORY.md': `# Memory\n- [Bot](${added}) — the bot's token\n- [Later](${cut}) — later\n`,
      [added]: topic('Bot', 'reference', 'by hand'),
      [cut]: topic('Later', 'project', 'later'),
    });
    await scanHome(home, { dataDir });
    const newPath = path.join(tmp, 'work', 'shop-renamed');
    await fs.mkdir(path.dirname(newPath), { recursive: true });
    await fs.rename(oldPath, newPath);
    const full = Array.from({ length: 199 }, (_, i) => `- [M${i}](m${i}.md) — memory ${i}`).join('\n');
    await addMemories(home, newPath, { 'MEMORY.md': `${full}\n`, 'm0.md': topic('M0', 'user', 'x') });
    const { plan } = await planRelink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    // The plan keeps the names (the merge needs them); what is shown of it masks them.
    expect(plan.areas.find((a) => a.area === 'private')).toMatchObject({ indexAdded: [added], notInIndex: [cut] });
    const shown = await shownMergePlan(plan);
    expect(shown.areas.find((a) => a.area === 'private')).toMatchObject({
      indexAdded: [expect.stringMatching(/^reference_ghp_\*+\.md$/)],
      notInIndex: [expect.stringMatching(/^project_ghp_\*+\.md$/)],
    });
    expect(shown.warnings.join(' ')).toMatch(/fall past the cut.*project_ghp_\*+\.md/);
    expect(JSON.stringify(shown)).not.toContain(token.slice(4));
  });

  it('refuses, writing nothing, a repository without a remote whose history was rewritten; a target that is itself an orphan; a path that does not exist', async () => {
    const oldPath = path.join(tmp, 'src', 'tool');
    await makeRepo(oldPath, null, 'first history');
    await addSession(home, oldPath);
    const oldMemory = await addMemories(home, oldPath, { 'MEMORY.md': '- [A](a.md) — a\n', 'a.md': topic('A', 'user', 'a') });
    await scanHome(home, { dataDir });
    await fs.rm(oldPath, { recursive: true });
    const rewritten = path.join(tmp, 'work', 'tool');
    await makeRepo(rewritten, null, 'rewritten history');
    const dir = sanitizeDirName(oldPath);
    const { plan } = await planRelink({ home, dataDir }, dir, rewritten);
    expect(plan.evidence).toEqual(['same-name']);
    expect(plan.blockers.join(' ')).toMatch(/does not look like the project.*no remote.*first commit .* is not the recorded .*rewritten/);
    await expect(relink({ home, dataDir }, dir, rewritten)).rejects.toThrow(/Nothing was written/);
    await expect(fs.access(path.join(home, 'projects', sanitizeDirName(rewritten)))).rejects.toThrow();
    expect(Object.keys(await readTree(oldMemory))).toEqual(['MEMORY.md', 'a.md']);
    // With force, the user's word wins.
    await relink({ home, dataDir }, dir, rewritten, { force: true });
    expect(Object.keys(await readTree(path.join(home, 'projects', sanitizeDirName(rewritten), 'memory')))).toEqual(['MEMORY.md', 'a.md']);

    const other = path.join(tmp, 'gone-too');
    await addSession(home, other);
    await addMemories(home, other, { 'b.md': topic('B', 'user', 'b') });
    await expect(planRelink({ home, dataDir }, sanitizeDirName(other), dir)).rejects.toThrow(/is itself an orphan/);
    await expect(planRelink({ home, dataDir }, sanitizeDirName(other), path.join(tmp, 'nowhere'))).rejects.toThrow(
      /There is no directory ".*nowhere": give the directory where the project is now\./,
    );
  });

  it("warns when nothing shows the new path is the orphan's project (no remote, first commit or name in common)", async () => {
    const gone = path.join(tmp, 'gone', 'php-calendar');
    await addMemories(home, gone, { 'MEMORY.md': '- [A](a.md) — a\n', 'a.md': topic('A', 'user', 'a') });
    const unrelated = path.join(tmp, 'work', 'goaly');
    await makeRepo(unrelated);
    await addSession(home, unrelated);
    await scanHome(home, { dataDir });
    const { plan } = await planRelink({ home, dataDir }, sanitizeDirName(gone), unrelated);
    expect(plan.evidence).toEqual([]);
    expect(plan.warnings.join(' ')).toContain(`Nothing shows that ${unrelated} is the project of ${sanitizeDirName(gone)}`);
  });

  it('refuses when two orphans claim the same new path, until forced', async () => {
    const { oldPath, newPath, oldMemory } = await movedProject();
    // An older copy of the same repository, also gone.
    const older = path.join(tmp, 'old-copy', 'shop');
    await cloneTo(newPath, older);
    await addSession(home, older);
    await addMemories(home, older, { 'c.md': topic('C', 'user', 'c') });
    await scanHome(home, { dataDir });
    await fs.rm(older, { recursive: true });
    const { plan } = await planRelink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    expect(plan.blockers.join(' ')).toMatch(new RegExp(`Another orphan also claims .*${sanitizeDirName(older)}`));
    const report = await findOrphans(home, { dataDir, lookIn: [newPath] });
    expect(report.orphans.find((o) => o.dir === sanitizeDirName(oldPath))!.candidates[0]!.claimedBy).toEqual([sanitizeDirName(older)]);
    // Refused in a sentence, nothing written on either side; forced, it goes.
    const newMemory = path.join(home, 'projects', sanitizeDirName(newPath), 'memory');
    const before = await readTree(oldMemory);
    await expect(relink({ home, dataDir }, sanitizeDirName(oldPath), newPath)).rejects.toThrow(/Another orphan also claims .*Nothing was written/);
    await expect(fs.access(newMemory)).rejects.toThrow();
    expect(await readTree(oldMemory)).toEqual(before);
    await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath, { force: true });
    expect(Object.keys(await readTree(newMemory))).toEqual(Object.keys(before));
  });
});

describe('clones (issue 18, item 4)', () => {
  it('groups two live clones with the same identity, merges one into the other with its local agent memory, and remembers keeping apart', async () => {
    const { a, b } = await twoClones();
    await addMemories(home, a, { 'MEMORY.md': '- [A](a.md) — a\n', 'a.md': topic('A', 'user', 'a') });
    const bMemory = await addMemories(home, b, { 'MEMORY.md': '- [B](b.md) — b\n', 'b.md': topic('B', 'user', 'b') });
    await fs.mkdir(path.join(a, '.claude', 'agent-memory-local', 'reviewer'), { recursive: true });
    await fs.writeFile(path.join(a, '.claude', 'agent-memory-local', 'reviewer', 'notes.md'), 'terse\n');
    const projects = (await scanHome(home, { dataDir })).projects;
    const groups = cloneGroups(projects, []);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.projects.map((p) => p.dir).sort()).toEqual([sanitizeDirName(a), sanitizeDirName(b)].sort());
    expect(groups[0]!.evidence).toEqual(['same-remote', 'same-root-commit']);

    await keepApart(dataDir, [sanitizeDirName(a), sanitizeDirName(b)]);
    expect(cloneGroups(projects, await readKeptApart(dataDir))).toEqual([]);

    const record = await mergeProjects({ home, dataDir }, sanitizeDirName(a), sanitizeDirName(b));
    expect(await readTree(bMemory)).toEqual({
      'MEMORY.md': '- [B](b.md) — b\n- [A](a.md) — a\n',
      'a.md': topic('A', 'user', 'a'),
      'b.md': topic('B', 'user', 'b'),
    });
    expect(await fs.readFile(path.join(b, '.claude', 'agent-memory-local', 'reviewer', 'notes.md'), 'utf8')).toBe('terse\n');
    await expect(fs.access(path.join(a, '.claude', 'agent-memory-local', 'reviewer', 'notes.md'))).rejects.toThrow();
    expect(record.plan.warnings.join(' ')).toMatch(/Sessions started in .* will find an empty memory/);
    await undoMerge(dataDir, record.id);
    expect(await fs.readFile(path.join(a, '.claude', 'agent-memory-local', 'reviewer', 'notes.md'), 'utf8')).toBe('terse\n');
    expect(Object.keys(await readTree(bMemory)).sort()).toEqual(['MEMORY.md', 'b.md']);
  });

  it('merging a clone leaves an agent memory folder that is a symbolic link where it is, and says so; what it leads to is untouched', async () => {
    const { a, b } = await twoClones();
    await addMemories(home, a, { 'a.md': topic('A', 'user', 'a') });
    await addMemories(home, b, { 'b.md': topic('B', 'user', 'b') });
    // The reviewer's local memory is kept in a dotfiles checkout and linked in (the Agents view lists it).
    const kept = path.join(tmp, 'dotfiles', 'reviewer');
    await fs.mkdir(kept, { recursive: true });
    await fs.writeFile(path.join(kept, 'notes.md'), 'terse\n');
    const local = path.join(a, '.claude', 'agent-memory-local');
    await fs.mkdir(path.join(local, 'planner'), { recursive: true });
    await fs.writeFile(path.join(local, 'planner', 'notes.md'), 'plan\n');
    await fs.symlink(kept, path.join(local, 'reviewer'));
    await scanHome(home, { dataDir });
    const record = await mergeProjects({ home, dataDir }, sanitizeDirName(a), sanitizeDirName(b));
    expect(record.plan.warnings).toContain(
      `The agent memory of reviewer in ${path.join(local, 'reviewer')} is a symbolic link to ${kept}: it stays where it is, as Memdir never follows a link with your files; copy what it leads to by hand if you want it there.`,
    );
    // The folder beside it moves; the link and what it leads to stay as they were.
    expect(await fs.readFile(path.join(b, '.claude', 'agent-memory-local', 'planner', 'notes.md'), 'utf8')).toBe('plan\n');
    expect(await fs.readlink(path.join(local, 'reviewer'))).toBe(kept);
    expect(await readTree(kept)).toEqual({ 'notes.md': 'terse\n' });
    await expect(fs.access(path.join(b, '.claude', 'agent-memory-local', 'reviewer'))).rejects.toThrow();
  });

  it('a merge whose MEMORY.md line was edited since: the undo refuses, naming it, and writes nothing in any folder; undo anyway takes it away, says so, and leaves no empty MEMORY.md', async () => {
    const { a, b } = await twoClones();
    const aMemory = await addMemories(home, a, { 'MEMORY.md': '- [SQL](sql.md) — by hand\n', 'sql.md': topic('SQL', 'feedback', 'by hand') });
    const bMemory = await addMemories(home, b, { 'mine.md': topic('Mine', 'user', 'mine') });
    await scanHome(home, { dataDir });
    const before = { a: await readTree(aMemory), b: await readTree(bMemory) };
    const record = await mergeProjects({ home, dataDir }, sanitizeDirName(a), sanitizeDirName(b));
    const index = path.join(bMemory, 'MEMORY.md');
    await fs.writeFile(index, (await fs.readFile(index, 'utf8')).replace('by hand', 'by hand, edited by me'));
    const merged = { a: await readTree(aMemory), b: await readTree(bMemory) };
    await expect(undoMerge(dataDir, record.id)).rejects.toMatchObject({
      code: 'conflict',
      message: `Nothing was undone: this would take merge ${record.id} away in every directory it changed, and this file was changed there since — ${index} (the line for sql.md). Put it back first (\`memdir restore\`), or undo anyway: what is there now stays in history.`,
    });
    expect({ a: await readTree(aMemory), b: await readTree(bMemory) }).toEqual(merged);
    const undone = await undoMerge(dataDir, record.id, { overwriteChanged: true });
    expect(await readTree(aMemory)).toEqual(before.a);
    expect(await readTree(bMemory)).toEqual(before.b);
    expect(undone.notes).toContain(
      `In ${bMemory}: MEMORY.md's line for sql.md was edited since "${(await listHistory(bMemory, { dataDir })).find((e) => e.source === 'relink')!.summary}": undone anyway, it went too (as edited, it stays in history).`,
    );
  });

  it('merging into a folder with memories and no MEMORY.md writes the index Claude Code would have built there, then the lines that came over; undo leaves none', async () => {
    const { a, b } = await twoClones();
    await addMemories(home, a, { 'MEMORY.md': '- [SQL](sql.md) — by hand\n', 'sql.md': topic('SQL', 'feedback', 'by hand') });
    const bMemory = await addMemories(home, b, { 'mine.md': topic('Mine', 'user', 'mine'), 'older.md': topic('Older', 'project', 'older') });
    await fs.utimes(path.join(bMemory, 'older.md'), 1_767_225_600, 1_767_225_600);
    await fs.utimes(path.join(bMemory, 'mine.md'), 1_767_225_660, 1_767_225_660);
    await scanHome(home, { dataDir });
    const built = predictBuiltIndex(bMemory)!.text;
    expect(built).toBe('- [mine](mine.md) — Mine in one line\n- [older](older.md) — Older in one line\n');
    const record = await mergeProjects({ home, dataDir }, sanitizeDirName(a), sanitizeDirName(b));
    expect(await fs.readFile(path.join(bMemory, 'MEMORY.md'), 'utf8')).toBe(`${built}- [SQL](sql.md) — by hand\n`);
    expect((await listHistory(bMemory, { dataDir })).find((e) => e.source === 'relink')!.summary).toMatch(
      /; MEMORY\.md written with the 2 pointers Claude Code would have built$/,
    );
    await undoMerge(dataDir, record.id);
    expect(Object.keys(await readTree(bMemory)).sort()).toEqual(['mine.md', 'older.md']);
  });

  it('merges a clone whose sessions start in app/: the local agent memory of app/ goes to app/ of the other clone', async () => {
    // Claude Code 2.1.332 launched in shop/app keeps its local agent memory in shop/app/.claude/, not at the root.
    const a = path.join(tmp, 'src', 'shop');
    await makeRepo(a);
    const b = path.join(tmp, 'fresh', 'shop');
    await cloneTo(a, b);
    for (const p of [a, b]) await fs.mkdir(path.join(p, 'app'), { recursive: true });
    await fs.mkdir(path.join(a, 'tools'), { recursive: true });
    await addSession(home, path.join(a, 'app'));
    await addSession(home, path.join(a, 'tools'), '0b0e3f5c-3333-4111-8111-111111111111');
    await addSession(home, path.join(b, 'app'), '0b0e3f5c-2222-4111-8111-111111111111');
    await addMemories(home, a, { 'a.md': topic('A', 'user', 'a') });
    await addMemories(home, b, { 'b.md': topic('B', 'user', 'b') });
    const local = (root: string, sub: string) => path.join(root, sub, '.claude', 'agent-memory-local', 'reviewer');
    for (const sub of ['app', 'tools', '']) {
      await fs.mkdir(local(a, sub), { recursive: true });
      await fs.writeFile(path.join(local(a, sub), `from-${sub || 'root'}.md`), `${sub || 'root'}\n`);
    }
    await scanHome(home, { dataDir });
    const record = await mergeProjects({ home, dataDir }, sanitizeDirName(a), sanitizeDirName(b));
    expect(await fs.readFile(path.join(local(b, 'app'), 'from-app.md'), 'utf8')).toBe('app\n');
    expect(await fs.readFile(path.join(local(b, ''), 'from-root.md'), 'utf8')).toBe('root\n');
    await expect(fs.access(path.join(local(a, 'app'), 'from-app.md'))).rejects.toThrow();
    // b has no tools/: that memory stays where it is, and the merge says so.
    expect(await fs.readFile(path.join(local(a, 'tools'), 'from-tools.md'), 'utf8')).toBe('tools\n');
    expect(record.plan.warnings).toContain(
      `The local agent memory in ${path.join(a, 'tools', '.claude', 'agent-memory-local')} (sessions started in tools/) stays where it is: ${path.join(b, 'tools')} is not a folder.`,
    );
    await undoMerge(dataDir, record.id);
    expect(await fs.readFile(path.join(local(a, 'app'), 'from-app.md'), 'utf8')).toBe('app\n');
  });
});
