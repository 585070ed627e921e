/**
 * A memory changed on disk while the person has unsaved edits, in real Chromium at a laptop's
 * 1024×700 (session 38, a person's day): the editor has scrolled down to the body they are typing
 * in, so the "Changed on disk" panel at the top of the editor is out of view. Pressing Save (or
 * Ctrl+S) then must not look like a save that did nothing: it brings both versions into view, with
 * the choice focused, and says by the Save button that nothing was saved. Nothing is written over
 * the other program's change, and the person's edit stays.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const FILE = '项目部署流程与回滚策略_生产环境_数据库迁移注意事项.md';
const long = Array.from({ length: 30 }, (_, i) => `- 第 ${i + 1} 步: 检查 https://example.com/deploy#step-${i + 1}`).join('\n');
const TEXT = `---\nname: "部署: 生产环境 #1 \\"蓝绿\\" 发布流程"\ndescription: 生产环境部署时必须先在预发环境验证数据库迁移脚本\ntype: project\n---\n\n${long}\n`;

/** Whether the element is on screen: inside the window and inside every scrolled box around it. */
function onScreen(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const inside = (box: { top: number; bottom: number }) => r.bottom > box.top + 1 && r.top < box.bottom - 1;
    const view = el.ownerDocument.defaultView!;
    if (!inside({ top: 0, bottom: view.innerHeight })) return false;
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (/(auto|scroll|hidden)/.test(view.getComputedStyle(p).overflowY) && !inside(p.getBoundingClientRect())) return false;
    }
    return true;
  });
}

describe.skipIf(!HAS_BROWSER)(`a memory changed on disk while it is being edited${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let memory: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-edit-conflict-'));
    memory = path.join(root, 'home', 'projects', '-work-deploy', 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(path.join(memory, FILE), TEXT);
    await fs.writeFile(path.join(memory, 'MEMORY.md'), `- [部署: 生产环境 #1 "蓝绿" 发布流程](${FILE}) — 生产环境部署时必须先在预发环境验证数据库迁移脚本\n`);
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('Save with the conflict out of view brings both versions into view, focused, says nothing was saved, and writes nothing', async () => {
    await page.goto(`${host.url}#/p/-work-deploy/memories/private/${encodeURIComponent(FILE)}`);
    const editor = page.getByRole('form', { name: `Edit ${FILE}` });
    const body = editor.getByLabel('Memory body');
    await body.click({ timeout: 20_000 });
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n我的修改: 周五不发布');
    // Another program (Claude Code, a text editor) changes the file meanwhile.
    const theirs = TEXT.replace('第 1 步', '第 1 步 (外部修改)');
    await fs.writeFile(path.join(memory, FILE), theirs);
    const conflict = editor.getByRole('region', { name: 'Conflict' });
    await conflict.waitFor();
    await page.screenshot({ path: artifact('edit-conflict-before-save.png') });

    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    const keepMine = conflict.getByRole('button', { name: 'Keep mine (save over it)' });
    await expect.poll(() => keepMine.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await expect.poll(() => onScreen(conflict.getByText('Changed on disk.'))).toBe(true);
    expect(await onScreen(keepMine)).toBe(true);
    // By the Save button too, in words: nothing was saved, and why.
    expect(await editor.getByRole('status', { name: 'Not saved' }).textContent()).toMatch(/^Not saved: .* changed on disk/);
    // Both versions fit the panel at 1024 px: a long line (a URL) wraps instead of pushing
    // "On disk now" past the panel's right edge, where it was cut off.
    const edges = await conflict.evaluate((el) => {
      const right = el.getBoundingClientRect().right;
      return [...el.querySelectorAll('pre')].map((pre) => Math.round(pre.getBoundingClientRect().right - right));
    });
    expect(edges).toHaveLength(2);
    for (const past of edges) expect(past).toBeLessThanOrEqual(0);
    await page.screenshot({ path: artifact('edit-conflict-after-save.png') });

    // Nothing written over theirs; the person's edit is still in the editor.
    expect(await fs.readFile(path.join(memory, FILE), 'utf8')).toBe(theirs);
    expect(await body.textContent()).toContain('我的修改: 周五不发布');

    // Keep mine: their change is in history, mine is on disk.
    await keepMine.click();
    await expect.poll(() => fs.readFile(path.join(memory, FILE), 'utf8')).toContain('我的修改: 周五不发布');
    // Saved: the choice is gone, and no draft is left behind.
    await expect.poll(() => conflict.count()).toBe(0);
    await expect.poll(() => page.getByText('1 unsaved draft').count()).toBe(0);
    // …and does not come back when the watcher reports the save (ours) a moment later.
    await page.waitForTimeout(3_000);
    expect(await conflict.count()).toBe(0);
    await page.screenshot({ path: artifact('edit-conflict-kept-mine.png') });
    expect(errors).toEqual([]);
  });

  it('Rename answers where the person is looking: Enter renames, a refused name is said in view', async () => {
    const editor = page.getByRole('form', { name: `Edit ${FILE}` });
    await editor.getByRole('button', { name: 'Rename', exact: true }).click();
    const name = editor.getByLabel('New file name');
    // A "#" would make the pointer name another file: refused, in words, where the person looks.
    await name.fill('部署 流程 #1.md');
    await editor.getByRole('button', { name: 'Rename', exact: true }).click();
    const refusal = editor.getByRole('alert').filter({ hasText: 'cannot be the name of a private memory' });
    await refusal.waitFor();
    await expect.poll(() => onScreen(refusal)).toBe(true);
    await page.screenshot({ path: artifact('edit-conflict-rename-refused.png') });
    // Enter in the name field renames (it used to submit the editor's form: a save of nothing).
    await name.fill('部署 流程 (蓝绿) 第一版.md');
    await name.press('Enter');
    await expect.poll(() => fs.readdir(memory)).toContain('部署 流程 (蓝绿) 第一版.md');
    await expect.poll(() => fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toContain('(<部署 流程 (蓝绿) 第一版.md>)');
    expect(errors).toEqual([]);
  });
});
