/**
 * Issue 14, "never lose an edit", in real Chromium against the real headless host: curating two
 * projects as a new user would. Each test reproduces a defect of the issue (it failed before the
 * fix) and checks the files on disk, not only the screen.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';
import { openApp } from './support/app.js';

requireBrowser();

/** Waits for what the app writes to disk or shows: a history commit can take seconds on a busy machine. */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

const topic = (name: string, description: string, type: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

describe.skipIf(!HAS_BROWSER)(`curation that never loses an edit${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let dataDir: string;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const mem = (dir: string) => path.join(home, 'projects', dir, 'memory');
  const read = (dir: string, file: string) => fs.readFile(path.join(mem(dir), file), 'utf8');
  const exists = (dir: string, file: string) =>
    fs.access(path.join(mem(dir), file)).then(
      () => true,
      () => false,
    );

  async function openProject(dir: string): Promise<void> {
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: dir, exact: true }).click();
    await page.getByRole('listbox', { name: 'Memories' }).waitFor();
  }
  async function openMemory(file: string): Promise<void> {
    await page.locator(`[data-file="${file}"]`).click();
    await page.getByRole('form', { name: `Edit ${file}` }).waitFor();
  }
  const description = () => page.getByRole('textbox', { name: /^Description/ });
  const editor = () => page.locator('form.editor');

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-curation-'));
    home = path.join(root, 'claude-home');
    dataDir = path.join(root, 'data');
    for (const [dir, who] of [
      ['-work-alpha', 'Alpha'],
      ['-work-beta', 'Beta'],
    ] as const) {
      await fs.mkdir(mem(dir), { recursive: true });
      await fs.writeFile(path.join(mem(dir), 'notes.md'), topic(`${who} notes`, `What ${who} keeps in mind`, 'project', `${who} body.`));
      await fs.writeFile(path.join(mem(dir), 'feedback_tests.md'), topic(`${who} tests`, `How ${who} tests`, 'feedback', 'Run the suite.'));
      await fs.writeFile(
        path.join(mem(dir), 'MEMORY.md'),
        `# ${who}\n\n- [${who} notes](notes.md) — What ${who} keeps in mind\n- [${who} tests](feedback_tests.md) — How ${who} tests\n`,
      );
    }
    const alpha = mem('-work-alpha');
    await fs.writeFile(path.join(alpha, 'todo_list.md'), topic('Open tasks', 'What is left to do', 'todo', 'Ship it.'));
    await fs.writeFile(path.join(alpha, 'reference_wiki.md'), topic('Wiki', 'Where the wiki lives', 'reference', 'https://wiki.example'));
    await fs.writeFile(
      path.join(alpha, 'broken.md'),
      '---\nname: "Broken\ndescription: unterminated quote\ntype: project\nowner: alice\n---\nThe body survives.\n',
    );
    const long = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the runbook.`);
    await fs.writeFile(path.join(alpha, 'project_runbook.md'), topic('Runbook', 'Steps of the release', 'project', long.join('\n')));
    await fs.appendFile(
      path.join(alpha, 'MEMORY.md'),
      '- [Open tasks](todo_list.md) — What is left to do\n- [Wiki](reference_wiki.md) — Where the wiki lives\n- [Runbook](project_runbook.md) — Steps of the release\n',
    );
    // An index past its 200-line cut, for reordering.
    await fs.mkdir(mem('-work-full'), { recursive: true });
    await fs.writeFile(
      path.join(mem('-work-full'), 'MEMORY.md'),
      `# Full\n${Array.from({ length: 204 }, (_, i) => `- [Memory ${i}](m${i}.md) — hook ${i}`).join('\n')}\n`,
    );
    for (let i = 0; i < 204; i++) await fs.writeFile(path.join(mem('-work-full'), `m${i}.md`), topic(`Memory ${i}`, `hook ${i}`, 'project', `Fact ${i}.`));
    ({ host, browser, page } = await openApp(['--home', home, '--port', '0', '--data-dir', dataDir], errors));
    await page.getByRole('button', { name: '-work-alpha', exact: true }).waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("keeps an unsaved edit bound to its project when switching to another project (A's draft never lands in B)", async () => {
    await openProject('-work-alpha');
    await openMemory('notes.md');
    await description().fill('Alpha: edited, not saved');
    await openProject('-work-beta');
    // B's page shows none of A's editor, and says the edit is kept.
    await page.getByText('Kept your unsaved edit to notes.md as a draft').waitFor();
    expect(await editor().count()).toBe(0);
    await openMemory('notes.md');
    await eventually(() => description().inputValue()).toBe('What Beta keeps in mind');
    await description().fill('Beta: saved from its own page');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved notes.md.').waitFor();
    expect(await read('-work-beta', 'notes.md')).toContain('description: "Beta: saved from its own page"');
    expect(await read('-work-alpha', 'notes.md')).toContain('description: What Alpha keeps in mind');
    // Back in A, the draft is where it was left.
    await openProject('-work-alpha');
    expect(await page.locator('[data-file="notes.md"]').getAttribute('aria-label')).toContain('unsaved draft');
    await openMemory('notes.md');
    await page.getByText('Restored your unsaved draft from').waitFor();
    expect(await description().inputValue()).toBe('Alpha: edited, not saved');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => read('-work-alpha', 'notes.md')).toContain('description: "Alpha: edited, not saved"');
    expect(await read('-work-beta', 'notes.md')).toContain('Beta: saved from its own page');
  });

  it('keeps a new memory started in one project in that project', async () => {
    await page.getByRole('button', { name: 'New memory' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Started in Alpha');
    await description().fill('A new memory begun in Alpha');
    await openProject('-work-beta');
    await page.getByRole('button', { name: 'New memory' }).click();
    await eventually(() => page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('');
    await openProject('-work-alpha');
    await page.getByRole('button', { name: 'New memory (draft)' }).click();
    await eventually(() => page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Started in Alpha');
    await page.getByRole('button', { name: 'Create memory' }).click();
    await page.getByText(/^Saved .*started_in_alpha\.md\./).waitFor();
    expect((await fs.readdir(mem('-work-alpha'))).some((f) => f.includes('started_in_alpha'))).toBe(true);
    expect((await fs.readdir(mem('-work-beta'))).some((f) => f.includes('started_in_alpha'))).toBe(false);
  });

  it('keeps the edit when another memory is clicked, and brings it back on return', async () => {
    await openMemory('feedback_tests.md');
    await description().fill('Tests: a draft while I look at the wiki');
    await page.locator('[data-file="reference_wiki.md"]').click();
    await page.getByRole('form', { name: 'Edit reference_wiki.md' }).waitFor();
    await page.getByText('Kept your unsaved edit to feedback_tests.md as a draft').waitFor();
    await page.locator('[data-file="feedback_tests.md"]').click();
    await eventually(() => description().inputValue()).toBe('Tests: a draft while I look at the wiki');
    expect(await read('-work-alpha', 'feedback_tests.md')).toContain('description: How Alpha tests');
    await page.screenshot({ path: artifact('curation-01-draft-restored.png') });
  });

  it('Close closes the editor (the edit stays a draft), and focus goes back to the list', async () => {
    await page.getByRole('button', { name: 'Close' }).click();
    await eventually(() => editor().count()).toBe(0);
    await page.getByText('Choose a memory to read or edit it').waitFor();
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Memories');
    await page.getByRole('button', { name: /^Drafts/ }).click();
    const drafts = page.getByRole('list', { name: 'Drafts' });
    await drafts.getByText('feedback_tests.md').waitFor();
    // Discarded from the list, it goes; the notice's Undo brings it back, kept as before.
    await drafts.getByRole('button', { name: 'Discard the draft of feedback_tests.md' }).click();
    await eventually(() => drafts.getByText('feedback_tests.md').count()).toBe(0);
    await page.getByRole('status').filter({ hasText: 'Discarded the draft of feedback_tests.md.' }).getByRole('button', { name: 'Undo' }).click();
    await drafts.getByText('feedback_tests.md').waitFor();
    // Kept on disk again at once (the next test restarts the app).
    const stored = async () => {
      const dir = path.join(dataDir, 'drafts');
      const names = await fs.readdir(dir).catch(() => [] as string[]);
      const texts = await Promise.all(names.map((n) => fs.readFile(path.join(dir, n), 'utf8')));
      return texts.some((t) => t.includes('"file":"feedback_tests.md"') && t.includes('Tests: a draft while I look at the wiki'));
    };
    await eventually(stored).toBe(true);
  });

  it('keeps drafts across a restart of the app', async () => {
    await host.stop();
    host = await startHost(['--home', home, '--port', '0', '--data-dir', dataDir]);
    await page.goto(host.url);
    await page.getByRole('button', { name: /^Drafts/ }).click();
    const draft = page.getByRole('list', { name: 'Drafts' }).locator('li', { hasText: 'feedback_tests.md' });
    await draft.getByRole('button', { name: /^Open the draft/ }).click();
    await eventually(() => description().inputValue()).toBe('Tests: a draft while I look at the wiki');
    await page.getByRole('button', { name: 'Discard draft' }).click();
    await eventually(() => description().inputValue()).toBe('How Alpha tests');
  });

  it('deletes a memory, and Undo brings back the file and its MEMORY.md pointer at its old line', async () => {
    const index = await read('-work-alpha', 'MEMORY.md');
    await openMemory('reference_wiki.md');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Deleted reference_wiki.md' });
    await toast.waitFor();
    expect(await read('-work-alpha', 'MEMORY.md')).not.toContain('reference_wiki.md');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByText('The pointer to reference_wiki.md is back at line 6 of MEMORY.md, where it was.').waitFor();
    expect(await read('-work-alpha', 'MEMORY.md')).toBe(index);
    expect(await exists('-work-alpha', 'reference_wiki.md')).toBe(true);
    await page.locator('[data-file="reference_wiki.md"]').waitFor();
  });

  it('restores a deleted memory from History with its pointer too', async () => {
    const index = await read('-work-alpha', 'MEMORY.md');
    await openMemory('reference_wiki.md');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted reference_wiki.md').waitFor();
    await page.getByRole('button', { name: 'History', exact: true }).click();
    await page.getByRole('button', { name: 'Restore reference_wiki.md' }).click();
    await page.getByText('Restored reference_wiki.md. The pointer to reference_wiki.md is back at line 6 of MEMORY.md, where it was.').waitFor();
    expect(await read('-work-alpha', 'MEMORY.md')).toBe(index);
  });

  it('asks before restoring a whole snapshot, lists the files it will change, and one Undo puts them back', async () => {
    const before = {
      index: await read('-work-alpha', 'MEMORY.md'),
      notes: await read('-work-alpha', 'notes.md'),
      files: (await fs.readdir(mem('-work-alpha'))).sort(),
    };
    const timeline = page.getByRole('list', { name: 'History' });
    // The first entry: the project as Memdir first found it.
    await timeline.getByRole('button').last().click();
    await page.getByRole('button', { name: 'Restore whole snapshot…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore the whole snapshot?' });
    await dialog.waitFor();
    const planned = await dialog.getByRole('list', { name: 'Files that will change' }).locator('li').allInnerTexts();
    expect(planned).toEqual(expect.arrayContaining([expect.stringMatching(/^notes\.md\s+rewritten/), expect.stringMatching(/started_in_alpha\.md\s+removed/)]));
    await page.screenshot({ path: artifact('curation-02-snapshot-confirm.png') });
    // Nothing was written while it asked.
    expect(await read('-work-alpha', 'notes.md')).toBe(before.notes);
    await dialog.getByRole('button', { name: /^Restore \d+ files$/ }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Restored the whole snapshot' });
    await toast.waitFor();
    expect(await read('-work-alpha', 'notes.md')).toContain('description: What Alpha keeps in mind');
    await toast.getByRole('button', { name: 'Undo' }).click();
    // The undo is recorded in history when it is done.
    await timeline.getByRole('button').first().filter({ hasText: 'Undo: Restored all memories' }).waitFor();
    expect(await read('-work-alpha', 'notes.md')).toBe(before.notes);
    expect(await read('-work-alpha', 'MEMORY.md')).toBe(before.index);
    expect((await fs.readdir(mem('-work-alpha'))).sort()).toEqual(before.files);
  });

  it('says how many unchanged lines the history diff hides between hunks', async () => {
    const file = path.join(mem('-work-alpha'), 'project_runbook.md');
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, text.replace('Line 3 of', 'Line three of').replace('Line 36 of', 'Line thirty-six of'));
    await page.getByRole('button', { name: 'Memories', exact: true }).click();
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const timeline = page.getByRole('list', { name: 'History' });
    // Its source first: a restore's summary now names the change it went back to ("…after “Changes made outside Memdir”").
    await timeline
      .getByRole('button')
      .first()
      .filter({ hasText: /^external\s*Changes made outside Memdir/ })
      .click();
    const diff = page.getByRole('region', { name: 'Changes to project_runbook.md' });
    await diff.getByText('… 4 unchanged lines').waitFor();
    await diff.getByText('… 26 unchanged lines').waitFor();
  });

  it('shows an invalid type as invalid (never as "project") and repairs it with a picked type', async () => {
    await page.getByRole('button', { name: 'Memories', exact: true }).click();
    await openMemory('todo_list.md');
    const type = page.getByRole('combobox', { name: 'Type', exact: true });
    expect(await type.inputValue()).toBe('');
    expect(await type.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('"todo" is not a type: pick one of user, feedback, project, reference.').waitFor();
    expect(await page.getByRole('button', { name: 'Save repaired file' }).isDisabled()).toBe(true);
    await page.screenshot({ path: artifact('curation-03-invalid-type.png') });
    await type.selectOption('project');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved todo_list.md.').waitFor();
    expect(await read('-work-alpha', 'todo_list.md')).toBe(topic('Open tasks', 'What is left to do', 'project', 'Ship it.'));
    expect(await type.getAttribute('aria-invalid')).toBeNull();
  });

  it('keeps unreadable frontmatter editable as YAML, and saves the repair without losing the other keys', async () => {
    await openMemory('broken.md');
    await page
      .getByText(/broken\.md has frontmatter that is not valid YAML/)
      .first()
      .waitFor();
    const yaml = page.getByRole('textbox', { name: 'Frontmatter (YAML)' });
    expect(await yaml.inputValue()).toBe('name: "Broken\ndescription: unterminated quote\ntype: project\nowner: alice');
    await yaml.fill('name: "Broken"\ndescription: unterminated quote\ntype: project\nowner: alice');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Broken');
    await description().fill('unterminated quote');
    await page.getByRole('combobox', { name: 'Type', exact: true }).selectOption('project');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved broken.md.').waitFor();
    expect(await read('-work-alpha', 'broken.md')).toBe(
      '---\nname: "Broken"\ndescription: unterminated quote\ntype: project\nowner: alice\n---\nThe body survives.\n',
    );
  });

  it('says a 2 MB paste is too big in a sentence, and writes nothing', async () => {
    await openMemory('notes.md');
    const before = await read('-work-alpha', 'notes.md');
    await page.locator('.cm-content').click();
    // A real paste event carrying 2 MB of text (made in the page: nothing that large crosses the wire).
    await page.evaluate(`(() => {
      const data = new DataTransfer();
      data.setData('text/plain', 'x'.repeat(2 * 1024 * 1024));
      document.querySelector('.cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    })()`);
    const alert = editor().getByRole('alert').filter({ hasText: 'This memory is 2.1 MB; a memory can be at most 1 MB.' });
    await alert.waitFor();
    expect(await alert.innerText()).not.toMatch(/memories\.update|Too big|expected string/);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await page.screenshot({ path: artifact('curation-04-too-big.png') });
    expect(await read('-work-alpha', 'notes.md')).toBe(before);
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await eventually(() => page.getByRole('alert').filter({ hasText: '2.1 MB' }).count()).toBe(0);
    expect(await page.getByText(/could not be kept/).count()).toBe(0);
  });

  it('shows both versions when the file changes on disk under a draft, and loses neither', async () => {
    await openMemory('notes.md');
    await description().fill('Mine, typed while Claude Code wrote');
    await fs.writeFile(path.join(mem('-work-alpha'), 'notes.md'), topic('Alpha notes', 'Written by Claude Code meanwhile', 'project', 'Theirs.'));
    const conflict = page.getByRole('region', { name: 'Conflict' });
    await conflict.waitFor();
    await conflict.getByText('Written by Claude Code meanwhile').waitFor();
    expect(await description().inputValue()).toBe('Mine, typed while Claude Code wrote');
    await conflict.getByRole('button', { name: 'Take theirs (set my edit aside)' }).click();
    await eventually(() => description().inputValue()).toBe('Written by Claude Code meanwhile');
    await page.getByRole('status').filter({ hasText: 'Showing the version on disk' }).getByRole('button', { name: 'Undo' }).click();
    await eventually(() => description().inputValue()).toBe('Mine, typed while Claude Code wrote');
    await page.getByRole('region', { name: 'Conflict' }).getByRole('button', { name: 'Keep mine (save over it)' }).click();
    await page.getByText('Saved notes.md.').waitFor();
    expect(await read('-work-alpha', 'notes.md')).toContain('Mine, typed while Claude Code wrote');
  });

  it('offers to recreate a file deleted on disk while open, from the draft', async () => {
    await openMemory('notes.md');
    await description().fill('Still wanted');
    await fs.rm(path.join(mem('-work-alpha'), 'notes.md'));
    const gone = page.getByRole('region', { name: 'Deleted on disk' });
    await gone.waitFor();
    await gone.getByRole('button', { name: 'Recreate notes.md from this draft' }).click();
    await page.getByText('Recreated notes.md from your draft.').waitFor();
    expect(await read('-work-alpha', 'notes.md')).toContain('description: Still wanted');
  });

  it('gives the second of two tabs editing one file a conflict, not an overwrite', async () => {
    const second = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    second.on('pageerror', (e) => errors.push(e.message));
    await second.goto(`${host.url}${new URL(page.url()).hash}`);
    await second.getByRole('form', { name: 'Edit notes.md' }).waitFor();
    // Both tabs hold an unsaved edit of the same file; the first saves.
    await second.getByRole('textbox', { name: /^Description/ }).fill('Second tab, typed meanwhile');
    await description().fill('First tab wins');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => read('-work-alpha', 'notes.md')).toContain('First tab wins');
    // The second tab's save meets a conflict, with both versions shown; nothing is overwritten.
    await second.getByRole('button', { name: 'Save', exact: true }).click();
    const conflict = second.getByRole('region', { name: 'Conflict' });
    await conflict.getByText('First tab wins').waitFor();
    expect(await second.getByRole('textbox', { name: /^Description/ }).inputValue()).toBe('Second tab, typed meanwhile');
    expect(await read('-work-alpha', 'notes.md')).toContain('First tab wins');
    await second.close();
  });

  it('says a linked name that never was a memory is not one, rather than "no longer exists"', async () => {
    await page.goto(`${host.url}#/p/-work-beta/memories/private/nope.md`);
    const said = page.getByRole('alert').filter({ hasText: 'There is no memory named "nope.md" in ' });
    await said.waitFor();
    expect(await said.textContent()).not.toContain('no longer exists');
    await page.goto(host.url);
  });

  it('refuses to save a token typed into a memory until asked, naming it masked; a second save anyway writes it', async () => {
    await openProject('-work-beta');
    await openMemory('feedback_tests.md');
    const token = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
    const before = await read('-work-beta', 'feedback_tests.md');
    await description().fill(`Run the suite with ${token}`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const ask = page.getByRole('alertdialog', { name: 'Secret warning' });
    await ask
      .getByText(/feedback_tests\.md would hold a GitHub token \(ghp_\*+\) in its description field \(line \d+ of the file\) \[fingerprint [0-9a-f]{16}\]/)
      .waitFor();
    expect(await ask.textContent()).not.toContain(token);
    expect(await read('-work-beta', 'feedback_tests.md')).toBe(before);
    await ask.getByRole('button', { name: 'Save anyway, with this secret' }).click();
    await page.getByText('Saved feedback_tests.md.').waitFor();
    expect(await read('-work-beta', 'feedback_tests.md')).toContain(token);
    // Already in the file, it does not block an unrelated edit.
    await description().fill(`Run the whole suite with ${token}`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => read('-work-beta', 'feedback_tests.md')).toContain('Run the whole suite');

    // A new name holding a token is asked about the same way: it would be MEMORY.md's pointer, sent to the model.
    // (Once that save has settled: the editor then shows the file as saved, nothing left to save.)
    await eventually(() => page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    const form = page.getByRole('form', { name: 'Edit feedback_tests.md' });
    await form.getByRole('button', { name: 'Rename', exact: true }).click();
    await form.getByLabel('New file name').fill(`feedback_${token}.md`);
    await form.getByRole('button', { name: 'Rename', exact: true }).click();
    await ask.getByText(/feedback_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name \[fingerprint [0-9a-f]{16}\]/).waitFor();
    expect(await ask.textContent()).not.toContain(token);
    // (Its description holds the token on purpose now, so MEMORY.md's hook does: the pointer's target is what is checked.)
    expect(await read('-work-beta', 'MEMORY.md')).not.toContain(`feedback_${token}.md`);
    await ask.getByRole('button', { name: 'Rename anyway, with this secret' }).click();
    await eventually(() => read('-work-beta', 'MEMORY.md')).toContain(`feedback_${token}.md`);
    // And back: a name without it goes through unasked.
    const renamed = page.getByRole('form', { name: `Edit feedback_${token}.md` });
    await renamed.waitFor();
    await renamed.getByRole('button', { name: 'Rename', exact: true }).click();
    await renamed.getByLabel('New file name').fill('feedback_tests.md');
    await renamed.getByRole('button', { name: 'Rename', exact: true }).click();
    await eventually(() => read('-work-beta', 'MEMORY.md')).not.toContain(`feedback_${token}.md`);
    expect(await read('-work-beta', 'feedback_tests.md')).toContain('Run the whole suite');
    await page.getByText('Renamed to feedback_tests.md.').waitFor();
    await page.getByRole('form', { name: 'Edit feedback_tests.md' }).waitFor();
    await openProject('-work-alpha');
    await openMemory('notes.md');
  });

  it('deletes several memories picked in the list as one change, undone by one click', async () => {
    const index = await read('-work-alpha', 'MEMORY.md');
    await page.getByRole('button', { name: 'Close' }).click();
    await page.locator('[data-file="feedback_tests.md"]').click({ modifiers: ['Control'] });
    await page.locator('[data-file="reference_wiki.md"]').click({ modifiers: ['Control'] });
    const bar = page.getByRole('toolbar', { name: 'Selected memories' });
    await bar.getByText('2 memories selected').waitFor();
    await page.screenshot({ path: artifact('curation-05-bulk.png') });
    await bar.getByRole('button', { name: 'Delete' }).click();
    // Asked first, as a single delete is: how many and which; nothing is deleted until the answer.
    const ask = bar.getByRole('group', { name: 'Confirm delete' });
    await ask.getByText('Delete 2 memories (feedback_tests.md and reference_wiki.md)? They stay in history').waitFor();
    expect(await exists('-work-alpha', 'reference_wiki.md')).toBe(true);
    await ask.getByRole('button', { name: 'Keep' }).click();
    expect(await exists('-work-alpha', 'reference_wiki.md')).toBe(true);
    await bar.getByRole('button', { name: 'Delete' }).click();
    await bar.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Deleted 2 memories.' });
    await toast.waitFor();
    expect(await exists('-work-alpha', 'reference_wiki.md')).toBe(false);
    await toast.getByRole('button', { name: 'Undo' }).click();
    await eventually(() => read('-work-alpha', 'MEMORY.md')).toBe(index);
    expect(await exists('-work-alpha', 'feedback_tests.md')).toBe(true);
  });

  it('an Undo out of order says which later change touched the file; undone newest first, the memory comes back once', async () => {
    await openProject('-work-beta');
    const index = await read('-work-beta', 'MEMORY.md');
    await openMemory('notes.md');
    await editor().getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByRole('textbox', { name: 'New file name' }).fill('kept_notes.md');
    await editor().locator('.inline-form').getByRole('button', { name: 'Rename', exact: true }).click();
    const renamed = page.getByRole('status').filter({ hasText: 'Renamed to kept_notes.md.' });
    await renamed.waitFor();
    await editor().getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const deleted = page.getByRole('status').filter({ hasText: 'Deleted kept_notes.md.' });
    await deleted.waitFor();
    // The rename's Undo, after the delete: it would bring notes.md back while the delete's Undo brings kept_notes.md back too.
    await renamed.getByRole('button', { name: 'Undo' }).click();
    const refused = page.getByRole('alert').filter({
      hasText:
        'Nothing was undone: since "Rename notes.md to kept_notes.md", kept_notes.md was deleted by "Delete kept_notes.md". Undo that first, or undo anyway (what is there now stays in history).',
    });
    await refused.waitFor();
    expect(await exists('-work-beta', 'notes.md')).toBe(false);
    // Undone newest first (the delete, then the rename, through the refusal's button), the memory comes back once, its pointer too.
    await deleted.getByRole('button', { name: 'Undo' }).click();
    await eventually(() => exists('-work-beta', 'kept_notes.md')).toBe(true);
    await refused.getByRole('button', { name: 'Undo anyway' }).click();
    await eventually(() => read('-work-beta', 'MEMORY.md')).toBe(index);
    expect((await fs.readdir(mem('-work-beta'))).filter((f) => f.endsWith('notes.md'))).toEqual(['notes.md']);
  });

  it("after Undo anyway of a rename whose new name was deleted, the delete's Undo says the memory is back already and brings no second copy", async () => {
    await openProject('-work-beta');
    const index = await read('-work-beta', 'MEMORY.md');
    await openMemory('notes.md');
    await editor().getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByRole('textbox', { name: 'New file name' }).fill('later_notes.md');
    await editor().locator('.inline-form').getByRole('button', { name: 'Rename', exact: true }).click();
    const renamed = page.getByRole('status').filter({ hasText: 'Renamed to later_notes.md.' });
    await renamed.waitFor();
    await editor().getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
    const deleted = page.getByRole('status').filter({ hasText: 'Deleted later_notes.md.' });
    await deleted.waitFor();
    await renamed.getByRole('button', { name: 'Undo' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'later_notes.md was deleted by "Delete later_notes.md"' });
    await refused.getByRole('button', { name: 'Undo anyway' }).click();
    await eventually(() => exists('-work-beta', 'notes.md')).toBe(true);
    await deleted.getByRole('button', { name: 'Undo' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText:
          'Nothing to undo: it is already that way. later_notes.md is back already, as notes.md, since "Undo: Rename notes.md to later_notes.md" (undone anyway): it is not brought back twice.',
      })
      .waitFor();
    expect((await fs.readdir(mem('-work-beta'))).filter((f) => f.endsWith('notes.md'))).toEqual(['notes.md']);
    expect(await read('-work-beta', 'MEMORY.md')).toBe(index);
  });

  it('reorders MEMORY.md by dragging, with the cut line where it falls while dragging; one Undo puts the order back', async () => {
    const index = await read('-work-full', 'MEMORY.md');
    await openProject('-work-full');
    await page.getByRole('button', { name: 'MEMORY.md', exact: true }).click();
    await page.getByRole('button', { name: 'Reorder entries' }).click();
    const list = page.getByRole('list', { name: 'MEMORY.md lines in their new order' });
    const line = (label: string) => list.getByRole('listitem', { name: new RegExp(`^${label}, line`) });
    expect(await line('Memory 203').getAttribute('aria-label')).toBe('Memory 203, line 205, past the cut');
    // Drag the last pointer up above the cut; while it is held there, the cut line moves under it.
    await line('Memory 203').scrollIntoViewIfNeeded();
    await line('Memory 203').hover();
    await page.mouse.down();
    // To where Memory 195 is, and held still there (the line under the pointer changes as lines shift).
    const target = (await line('Memory 195').boundingBox())!;
    const source = (await line('Memory 203').boundingBox())!;
    // (In the middle of the line: the notices sit at the bottom left.)
    const x = target.x + target.width / 2;
    await page.mouse.move(x, source.y + source.height / 2 - 4);
    await page.mouse.move(x, target.y + target.height / 2);
    await page.mouse.move(x + 4, target.y + target.height / 2);
    await eventually(() => line('Memory 203').getAttribute('aria-label')).toBe('Memory 203, line 197');
    expect(await list.getByRole('separator').count()).toBe(1);
    expect(await line('Memory 197').getAttribute('aria-label')).toBe('Memory 197, line 200');
    expect(await line('Memory 198').getAttribute('aria-label')).toBe('Memory 198, line 201, past the cut');
    await page.screenshot({ path: artifact('curation-06-reorder-drag.png') });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Save this order' }).click();
    await eventually(async () => (await read('-work-full', 'MEMORY.md')).split('\n')[196]).toBe('- [Memory 203](m203.md) — hook 203');
    await page.getByRole('status').filter({ hasText: 'Saved the new order of MEMORY.md.' }).getByRole('button', { name: 'Undo' }).click();
    await eventually(() => read('-work-full', 'MEMORY.md')).toBe(index);
    expect(errors).toEqual([]);
  });

  it('a bulk move to the team asks about a memory whose name holds a token, masked, as a single move does; Move anyway moves it with its pointer', async () => {
    const token = ['ghp_', 'Lp4Wn8Qx', 'Rt2Ym6Ke', 'Vb9Hs3Jd', 'Fc7Ua1Zo', 'g5Ni'].join('');
    const named = `reference_${token}.md`;
    await fs.writeFile(path.join(mem('-work-beta'), named), topic('Deploy bot', 'The bot named after its token', 'reference', 'The deploy bot.'));
    await openProject('-work-beta');
    await page.locator(`[data-file="${named}"]`).waitFor({ timeout: 15_000 });
    await page.locator(`[data-file="${named}"]`).click({ modifiers: ['Control'] });
    await page.locator('[data-file="notes.md"]').click({ modifiers: ['Control'] });
    const bar = page.getByRole('toolbar', { name: 'Selected memories' });
    await bar.getByText('2 memories selected').waitFor();
    await bar.getByRole('button', { name: 'Move to team' }).click();
    // The rest moves (one Undo); the token-named one is asked about on its own, masked, and stays until the answer.
    await page.getByRole('status').filter({ hasText: 'Moved to the team memory: 1 memory.' }).waitFor();
    const ask = page.getByRole('alert').filter({ hasText: 'would hold a GitHub token' });
    await ask
      .getByText(
        /^Nothing was saved: team\/reference_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name .* or move anyway on purpose, and team sync shares it with your team\.$/,
      )
      .waitFor();
    expect(await ask.textContent()).not.toContain(token.slice(6));
    expect(await exists('-work-beta', 'team/notes.md')).toBe(true);
    expect(await exists('-work-beta', named)).toBe(true);
    expect(await read('-work-beta', 'team/MEMORY.md')).not.toContain(named);
    await ask.getByRole('button', { name: 'Move anyway, with this secret' }).click();
    // (The file is written before its pointer, in the one history entry.)
    await eventually(() => read('-work-beta', 'team/MEMORY.md')).toContain(named);
    expect(await exists('-work-beta', `team/${named}`)).toBe(true);
    expect(await exists('-work-beta', named)).toBe(false);
    expect(errors).toEqual([]);
  });

  it('recreating a token-named file deleted on disk asks about its name, masked, as a save does; Recreate anyway brings it back from the draft', async () => {
    const token = ['ghp_', 'Nk5Tb2Wq', 'Xe8Jr4Lm', 'Ds1Gv7Hc', 'Py3Fa9Zu', 'o6Ri'].join('');
    const named = `reference_${token}.md`;
    await fs.writeFile(path.join(mem('-work-alpha'), named), topic('Release bot', 'The bot named after its token', 'reference', 'The release bot.'));
    await openProject('-work-alpha');
    await page.locator(`[data-file="${named}"]`).waitFor({ timeout: 15_000 });
    await openMemory(named);
    await description().fill('Still the release bot');
    await fs.rm(path.join(mem('-work-alpha'), named));
    const gone = page.getByRole('region', { name: 'Deleted on disk' });
    await gone.waitFor();
    await gone.getByRole('button', { name: /^Recreate reference_.* from this draft$/ }).click();
    const ask = page.getByRole('alertdialog', { name: 'Secret warning' });
    await ask.getByText(/^Nothing was saved: reference_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name/).waitFor();
    expect(await ask.textContent()).not.toContain(token.slice(6));
    expect(await exists('-work-alpha', named)).toBe(false);
    await ask.getByRole('button', { name: 'Recreate anyway, with this secret' }).click();
    await eventually(() => read('-work-alpha', named).catch(() => '')).toContain('description: Still the release bot');
    expect(errors).toEqual([]);
  });
});
