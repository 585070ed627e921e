/**
 * Memory that follows the project (issue 18), in real Chromium against the real headless host:
 * a project with memories is moved on disk and its memory shows as orphaned with the right
 * candidate (found in a Settings workspace, by remote and root commit); relink brings every
 * memory (private, team, and the agent memory in the repository) to the directory Claude Code
 * now reads, with history in both; undo puts it back; a second clone is grouped with it and
 * merged, and that undo restores the state before.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listHistory, recordExternalChanges } from '../src/main/history/history.js';
import { exportProject, importArchive, undoMerge } from '../src/main/relink/index.js';
import { addMemories, addSession, git, makeRepo, topic } from '../src/main/relink/test-support/moved-project.js';
import { sanitizeDirName } from '../src/shared/sanitize.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

/** A relink, a merge or an undo scans, writes and records history: more than a click's worth of time. */
const SLOW = { timeout: 15_000, interval: 100 };

const MEMORIES = {
  'MEMORY.md': '- [No ORM](feedback_sql.md) — write SQL by hand\n',
  'feedback_sql.md': topic('No ORM', 'feedback', 'Write SQL by hand.'),
  'team/MEMORY.md': '- [CI](project_ci.md) — CI has no Python 3.8\n',
  'team/project_ci.md': topic('CI', 'project', 'CI dropped Python 3.8.'),
};

/** A link of 300 characters without a space. */
const LONG_LINK = `https://wiki.example.com/${'x'.repeat(270)}`;

/** What in `region` reaches past its right edge, or scrolls sideways: a line that does not wrap. */
function widerThanItself(region: Locator): Promise<string[]> {
  return region.evaluate((el) => {
    const edge = el.getBoundingClientRect().right + 1;
    const out: string[] = [];
    if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName} scrolls sideways`);
    for (const child of el.querySelectorAll('*')) {
      if (child.getBoundingClientRect().right > edge) out.push(`${child.tagName}.${child.className} reaches past the edge`);
      else if (child.tagName === 'PRE' && child.scrollWidth > child.clientWidth + 1) out.push('PRE scrolls sideways');
    }
    return out.slice(0, 5);
  });
}

/** Every file under `dir` (dotfiles aside) with its text: what "restored" is checked against. */
async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await files(dir)) out[f] = await fs.readFile(path.join(dir, f), 'utf8');
  return out;
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (abs: string, rel: string) => {
    for (const e of await fs.readdir(abs, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(path.join(abs, e.name), `${rel}${e.name}/`);
      else if (!e.name.startsWith('.')) out.push(`${rel}${e.name}`);
    }
  };
  await walk(dir, '');
  return out.sort();
}

describe.skipIf(!HAS_BROWSER)(`memory that follows the project${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let dataDir: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  let oldPath: string;
  let newPath: string;
  let clonePath: string;
  const memoryOf = (p: string) => path.join(home, 'projects', sanitizeDirName(p), 'memory');

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-relink-')));
    home = path.join(root, 'home');
    dataDir = path.join(root, 'data');
    oldPath = path.join(root, 'src', 'shop');
    newPath = path.join(root, 'work', 'shop-moved');
    clonePath = path.join(root, 'laptop', 'shop-clone');
    await makeRepo(oldPath);
    await addSession(home, oldPath);
    await addMemories(home, oldPath, MEMORIES);
    await fs.mkdir(path.join(oldPath, '.claude', 'agent-memory-local', 'reviewer'), { recursive: true });
    await fs.writeFile(path.join(oldPath, '.claude', 'agent-memory-local', 'reviewer', 'MEMORY.md'), '- terse reviews\n');
    host = await startHost(['--home', home, '--port', '0', '--data-dir', dataDir]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("shows the project's identity, then its memory as orphaned with the right candidate once it moved", async () => {
    await page.goto(host.url);
    const rootCommit = git(oldPath, 'rev-list', '--max-parents=0', 'HEAD');
    await expect.poll(() => page.locator('.identity').first().textContent(), SLOW).toBe(`github.com/acme/shop · root ${rootCommit.slice(0, 7)}`);
    // The project moves; the user tells Memdir where projects live.
    await fs.mkdir(path.dirname(newPath), { recursive: true });
    await fs.rename(oldPath, newPath);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByLabel('Workspace folders').fill(path.join(root, 'work'));
    await page.getByRole('button', { name: 'Save workspaces' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Save workspaces' }).isDisabled(), SLOW).toBe(true);
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    const orphans = page.getByRole('region', { name: 'Orphaned memory' });
    await orphans.waitFor();
    const orphan = orphans.getByLabel(`Orphan ${sanitizeDirName(oldPath)}`);
    await expect.poll(() => orphan.textContent(), SLOW).toContain(`${newPath} (same remote, same root commit; found in workspace)`);
    expect(await orphan.textContent()).toContain('1 memory, 1 team');
    await page.screenshot({ path: artifact('relink-orphan.png'), fullPage: true });
  });

  it('relinks every memory to the directory Claude Code now reads, with history in both, and undoes it', async () => {
    await page.getByRole('region', { name: 'Orphaned memory' }).getByRole('button', { name: 'Relink here…' }).click();
    const preview = page.getByRole('region', { name: 'Relink preview' });
    await preview.waitFor();
    const table = preview.getByRole('table', { name: 'What will happen' });
    await expect.poll(() => table.locator('tr').count(), SLOW).toBe(4);
    expect(await table.textContent()).toContain('teamproject_ci.mdadded');
    await page.screenshot({ path: artifact('relink-preview.png'), fullPage: true });
    await preview.getByRole('button', { name: 'Relink', exact: true }).click();
    const result = page.getByRole('region', { name: 'Merge result' });
    await expect.poll(() => result.textContent(), SLOW).toContain(`Relinked: 4 files moved to ${sanitizeDirName(newPath)}`);
    expect(await files(memoryOf(newPath))).toEqual(['MEMORY.md', 'feedback_sql.md', 'team/MEMORY.md', 'team/project_ci.md']);
    expect(await files(memoryOf(oldPath))).toEqual([]);
    // The agent memory kept in the repository is where Claude Code reads it for the new path.
    expect(await fs.readFile(path.join(newPath, '.claude', 'agent-memory-local', 'reviewer', 'MEMORY.md'), 'utf8')).toBe('- terse reviews\n');
    expect((await listHistory(memoryOf(newPath), { dataDir }))[0]!.summary).toContain(`Relinked from projects/${sanitizeDirName(oldPath)}`);
    expect((await listHistory(memoryOf(oldPath), { dataDir }))[0]!.summary).toContain(`Moved to projects/${sanitizeDirName(newPath)}`);
    await expect.poll(() => page.getByRole('region', { name: 'Orphaned memory' }).count(), SLOW).toBe(0);
    // The moved project's memories are on the dashboard under its new path.
    await expect.poll(() => page.getByRole('button', { name: newPath }).count(), SLOW).toBe(1);

    await result.getByRole('button', { name: 'Undo relink' }).click();
    await expect.poll(() => result.textContent(), SLOW).toContain('Undone');
    expect(await contents(memoryOf(oldPath))).toEqual(MEMORIES);
    expect(await files(memoryOf(newPath))).toEqual([]);
    await page.getByRole('region', { name: 'Orphaned memory' }).waitFor();
  });

  it('groups a second clone with the relinked project, merges it, and the undo restores the state before', async () => {
    await page.getByRole('region', { name: 'Orphaned memory' }).getByRole('button', { name: 'Relink here…' }).click();
    await page.getByRole('region', { name: 'Relink preview' }).getByRole('button', { name: 'Relink', exact: true }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Merge result' }).textContent(), SLOW).toContain('Relinked');
    // A second clone of the same repository, with memories of its own (one identical, one new).
    await fs.mkdir(path.dirname(clonePath), { recursive: true });
    git(root, 'clone', '-q', newPath, clonePath);
    git(clonePath, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop.git');
    await addSession(home, clonePath, '0b0e3f5c-3333-4333-8333-333333333333');
    await addMemories(home, clonePath, {
      'MEMORY.md': '- [Laptop](user_laptop.md) — the laptop clone\n',
      'user_laptop.md': topic('Laptop', 'user', 'Works on the laptop.'),
      'feedback_sql.md': MEMORIES['feedback_sql.md'],
    });
    // The clone's own local agent memory (never committed): it moves with the merge.
    const agentOf = (p: string) => path.join(p, '.claude', 'agent-memory-local', 'reviewer');
    await fs.mkdir(agentOf(clonePath), { recursive: true });
    await fs.writeFile(path.join(agentOf(clonePath), 'laptop.md'), '- reviews on the laptop\n');
    await page.reload();
    const group = page.getByRole('region', { name: 'One project in several places' });
    await group.waitFor();
    expect(await group.textContent()).toContain('2 memory folders of the same repository (same remote, same root commit)');
    const before = {
      clone: await contents(memoryOf(clonePath)),
      moved: await contents(memoryOf(newPath)),
      cloneAgent: await contents(agentOf(clonePath)),
      movedAgent: await contents(agentOf(newPath)),
    };
    const merge = group.getByRole('button', { name: /^Merge / });
    const label = (await merge.textContent()) ?? '';
    await merge.click();
    const preview = page.getByRole('region', { name: 'Merge preview' });
    await preview.waitFor();
    expect(await preview.textContent()).toContain('identical, kept once');
    await preview.getByRole('button', { name: 'Merge', exact: true }).click();
    const result = page.getByRole('region', { name: 'Merge result' });
    await expect.poll(() => result.textContent(), SLOW).toContain('Merged:');
    const [from, into] = label.startsWith(`Merge ${clonePath}`) ? [clonePath, newPath] : [newPath, clonePath];
    expect(await files(memoryOf(from))).toEqual([]);
    expect(await files(memoryOf(into))).toEqual([...new Set([...Object.keys(before.clone), ...Object.keys(before.moved)])].sort());
    expect(await files(agentOf(from))).toEqual([]);
    expect(await files(agentOf(into))).toEqual(['MEMORY.md', 'laptop.md']);
    expect(await fs.readFile(path.join(memoryOf(into), 'MEMORY.md'), 'utf8')).toMatch(/No ORM[\s\S]*Laptop|Laptop[\s\S]*No ORM/);
    await expect.poll(() => page.getByRole('region', { name: 'One project in several places' }).count(), SLOW).toBe(0);
    await page.screenshot({ path: artifact('relink-merged.png'), fullPage: true });

    await result.getByRole('button', { name: 'Undo merge' }).click();
    await expect.poll(() => result.textContent(), SLOW).toContain('Undone');
    expect(await contents(memoryOf(clonePath))).toEqual(before.clone);
    expect(await contents(memoryOf(newPath))).toEqual(before.moved);
    expect(await contents(agentOf(clonePath))).toEqual(before.cloneAgent);
    expect(await contents(agentOf(newPath))).toEqual(before.movedAgent);
    await page.getByRole('region', { name: 'One project in several places' }).waitFor();
  });

  it('keeps a file both clones have with other content as a conflict, resolved in the merge editor', async () => {
    // With a long line no space breaks (a link, as people paste them): it wraps inside the editor's sides.
    await fs.writeFile(
      path.join(memoryOf(clonePath), 'feedback_sql.md'),
      topic('No ORM', 'feedback', `Raw SQL, but the laptop uses a query builder: ${LONG_LINK}`),
    );
    await page.reload();
    const group = page.getByRole('region', { name: 'One project in several places' });
    const merge = group.getByRole('button', { name: /^Merge / });
    const into = ((await merge.textContent()) ?? '').startsWith(`Merge ${clonePath}`) ? newPath : clonePath;
    await merge.click();
    const preview = page.getByRole('region', { name: 'Merge preview' });
    await expect.poll(() => preview.textContent(), SLOW).toContain('feedback_sql.mdconflict: kept for you');
    expect(await widerThanItself(preview)).toEqual([]);
    await preview.getByRole('button', { name: 'Merge', exact: true }).click();
    const result = page.getByRole('region', { name: 'Merge result' });
    await result.getByRole('button', { name: 'Resolve feedback_sql.md' }).click();
    const editor = page.getByRole('region', { name: 'Resolve feedback_sql.md' });
    await editor.waitFor();
    // Was: the long line ran on unwrapped, the sides wider than the dialog (its edge and buttons off to the right).
    expect(await widerThanItself(editor)).toEqual([]);
    // The result starts as every line of both versions; "Keep both" writes that text (the one keepBoth, as
    // `memdir merge resolve --keep both` does): both bodies, the frontmatter once.
    expect(await editor.getByRole('button', { name: 'Keep both' }).getAttribute('title')).toContain('common lines once');
    await editor.getByRole('button', { name: 'Keep both' }).click();
    await expect.poll(() => result.textContent(), SLOW).toContain('feedback_sql.md: resolved (both)');
    const kept = await fs.readFile(path.join(memoryOf(into), 'feedback_sql.md'), 'utf8');
    expect(kept).toContain('Write SQL by hand.');
    expect(kept).toContain('the laptop uses a query builder');
    expect(kept.match(/^name: No ORM$/gm)).toHaveLength(1);
    await page.screenshot({ path: artifact('relink-conflict-resolved.png'), fullPage: true });
  });

  it('lists the history an import brought in on the History page, and restores a memory from it', async () => {
    // Another project whose history holds an older version of its memory, exported, then imported into a fresh one.
    const sourcePath = path.join(root, 'elsewhere', 'notes');
    await makeRepo(sourcePath);
    await addSession(home, sourcePath);
    const sourceMemory = await addMemories(home, sourcePath, {
      'MEMORY.md': '- [Plan](plan.md) — the plan\n',
      'plan.md': topic('Plan', 'project', 'First plan.'),
    });
    await recordExternalChanges(sourceMemory, { dataDir });
    await fs.writeFile(path.join(sourceMemory, 'plan.md'), topic('Plan', 'project', 'Second plan.'));
    const archive = path.join(root, 'notes.memdir.tar');
    await exportProject({ home, dataDir }, sourcePath, archive);
    const targetPath = path.join(root, 'fresh', 'notes');
    await makeRepo(targetPath);
    await addSession(home, targetPath);
    const record = await importArchive({ home, dataDir }, archive, targetPath, { force: true });
    await page.goto(`${host.url}#/p/${sanitizeDirName(targetPath)}/history`);
    const imported = page.getByRole('list', { name: `Imported history ${record.id}` });
    await imported.waitFor();
    expect(await imported.getByRole('button').count()).toBe(2);
    // Its oldest change: the first plan, restored from the page.
    await imported.getByRole('button').last().click();
    await page.getByRole('region', { name: 'Changes to plan.md' }).getByRole('button', { name: 'Restore this version' }).click();
    await page.getByRole('status').filter({ hasText: 'Restored plan.md.' }).waitFor();
    expect(await fs.readFile(path.join(memoryOf(targetPath), 'plan.md'), 'utf8')).toBe(topic('Plan', 'project', 'First plan.'));
    await page.screenshot({ path: artifact('relink-imported-history.png'), fullPage: true });
  });

  it('marks an import undone since on the History page, and offers no restore from its history', async () => {
    const sourcePath = path.join(root, 'elsewhere', 'drafts');
    await makeRepo(sourcePath);
    await addSession(home, sourcePath);
    await addMemories(home, sourcePath, { 'MEMORY.md': '- [Idea](idea.md) — an idea\n', 'idea.md': topic('Idea', 'project', 'An idea.') });
    const archive = path.join(root, 'drafts.memdir.tar');
    await exportProject({ home, dataDir }, sourcePath, archive);
    const targetPath = path.join(root, 'fresh', 'drafts');
    await makeRepo(targetPath);
    await addSession(home, targetPath);
    await addMemories(home, targetPath, { 'MEMORY.md': '- [Own](own.md) — its own\n', 'own.md': topic('Own', 'project', 'Its own.') });
    const record = await importArchive({ home, dataDir }, archive, targetPath, { force: true });
    await undoMerge(dataDir, record.id);
    await page.goto(`${host.url}#/p/${sanitizeDirName(targetPath)}/history`);
    const imported = page.getByRole('list', { name: `Imported history ${record.id}` });
    await imported.waitFor();
    await page.getByText(`Brought in by import ${record.id}`).filter({ hasText: 'undone since' }).waitFor();
    await imported.getByRole('button').last().click();
    await page.getByRole('region', { name: 'Changes to idea.md' }).waitFor();
    expect(await page.getByRole('button', { name: 'Restore this version' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Restore whole snapshot…' }).count()).toBe(0);
    await page.screenshot({ path: artifact('relink-undone-import-history.png'), fullPage: true });
  });
});
