/**
 * Extraction end to end, in real Chromium against the real host (its model provider talks to the
 * fake Anthropic server over HTTP): a transcript is appended on disk as Claude Code would → the
 * host's transcript watcher sees the turn end → a proposal appears in the Review queue → accepted
 * → the memory and its index pointer are on disk. Then "Connect to Claude Code" shows the diff
 * of settings.json before writing it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../src/shared/sanitize.js';
import { type FakeAnthropic, startFakeAnthropic } from '../src/main/llm/test-support/fake-anthropic.js';
import { TranscriptBuilder } from '../src/main/transcripts/test-support/transcript-builder.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`extraction and the review queue${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let cwd: string;
  let memoryDir: string;
  let transcript: string;
  let fake: FakeAnthropic;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-extract-')));
    home = path.join(root, 'home');
    cwd = path.join(root, 'shop');
    await fs.mkdir(cwd, { recursive: true });
    const projectDir = path.join(home, 'projects', sanitizeDirName(cwd));
    memoryDir = path.join(projectDir, 'memory');
    transcript = path.join(projectDir, 'session-e2e.jsonl');
    await fs.mkdir(memoryDir, { recursive: true });
    await fs.writeFile(
      path.join(memoryDir, 'feedback_sql.md'),
      '---\nname: No ORM\ndescription: We write SQL by hand\ntype: feedback\n---\nThe ORM hid N+1 queries.\n',
    );
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [No ORM](feedback_sql.md) — We write SQL by hand\n');
    // An earlier turn, there before the app starts: only turns after it are new to Memdir.
    await fs.writeFile(
      transcript,
      new TranscriptBuilder({ sessionId: 'session-e2e', cwd, uuidPrefix: 'old' }).prompt('hello').assistant('Hi!', { stopReason: 'end_turn' }).take(),
    );
    // Written an hour ago, as a session there before the app is: a transcript written within the turn
    // watcher's clock margin (1 s) of its start counts as written since, and its last turn as new.
    const anHourAgo = Date.now() / 1000 - 3600;
    await fs.utimes(transcript, anHourAgo, anHourAgo);
    const dataDir = path.join(root, 'data');
    await fs.mkdir(dataDir, { recursive: true });
    await fs.writeFile(path.join(dataDir, 'settings.json'), JSON.stringify({ extraction: { mode: 'review', quietSeconds: 1 }, model: { maxRetries: 0 } }));

    fake = await startFakeAnthropic();
    fake.setHandler((request) => {
      const prompt = JSON.stringify(request.body?.messages ?? '');
      // An update of the SQL memory, proposed from it as it is when the turn ends.
      if (prompt.includes('sql folder')) {
        return {
          kind: 'message',
          text: JSON.stringify({
            operations: [
              {
                action: 'update',
                file: 'feedback_sql.md',
                scope: 'private',
                type: 'feedback',
                name: 'No ORM',
                description: 'We write SQL by hand',
                body: 'The ORM hid N+1 queries; the SQL lives in the sql folder.\n',
                reason: 'Where the SQL lives.',
              },
            ],
          }),
        };
      }
      // The model answers from the turn it was sent: a correction about tests is worth keeping.
      if (!prompt.includes('integration tests')) return { kind: 'message', text: '{"operations": []}' };
      return {
        kind: 'message',
        text: JSON.stringify({
          operations: [
            {
              action: 'create',
              file: 'feedback_real_db.md',
              scope: 'private',
              type: 'feedback',
              name: 'Real database in integration tests',
              description: 'Integration tests hit the compose Postgres, never mocks',
              body: 'Mocks hid a broken migration last quarter.\n\n**Why:** the outage.\n**How to apply:** use docker compose up db.\n',
              reason: 'The user corrected the agent.',
            },
          ],
        }),
        usage: { input_tokens: 1500, output_tokens: 120 },
      };
    });
    host = await startHost(['--home', home, '--port', '0', '--data-dir', dataDir], {
      ANTHROPIC_API_KEY: 'sk-ant-api03-e2e-not-a-real-key',
      ANTHROPIC_BASE_URL: fake.url,
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: '',
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fake?.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('a turn appended to a transcript becomes a proposal; accepting it writes the memory and its pointer', async () => {
    await page.goto(host.url);
    await page.getByRole('button', { name: /^Review queue/ }).click();
    await page.getByText('Nothing waiting for review.', { exact: false }).waitFor();

    // Claude Code appends a turn: the user corrects the agent, the answer ends the turn.
    const t = new TranscriptBuilder({ sessionId: 'session-e2e', cwd, uuidPrefix: 'new', start: '2026-03-05T09:00:00.000Z' });
    t.prompt("Don't mock the database in integration tests, a mock hid a broken migration last quarter.").assistant(
      'Understood: integration tests will use the compose Postgres.',
      { stopReason: 'end_turn' },
    );
    await fs.appendFile(transcript, t.take());

    const card = page.getByRole('article', { name: 'Proposal Real database in integration tests' });
    await card.waitFor({ timeout: 30_000 });
    await card.getByText("Don't mock the database in integration tests").waitFor();
    expect(await card.textContent()).toContain('create feedback_real_db.md');
    await expect.poll(() => page.getByRole('button', { name: /^Review queue/ }).textContent()).toContain('1');
    await page.screenshot({ path: artifact('07-review-queue.png') });
    // Nothing is written before the user says so.
    await expect(fs.stat(path.join(memoryDir, 'feedback_real_db.md'))).rejects.toThrow();

    await card.getByRole('button', { name: 'Accept' }).click();
    await page.getByText('Saved feedback_real_db.md.').waitFor();
    await card.waitFor({ state: 'detached' });
    const written = await fs.readFile(path.join(memoryDir, 'feedback_real_db.md'), 'utf8');
    expect(written).toContain('name: Real database in integration tests');
    expect(written).toContain('originSessionId: session-e2e');
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(
      '- [No ORM](feedback_sql.md) — We write SQL by hand\n- [Real database in integration tests](feedback_real_db.md) — Integration tests hit the compose Postgres, never mocks\n',
    );
    // The earlier turn was never sent: Memdir started watching after it.
    const sent = JSON.stringify(fake.messageRequests().map((r) => r.body?.messages));
    expect(sent).not.toContain('hello');

    // The log keeps the turn and the decision.
    await page.getByRole('button', { name: /Extraction log/ }).click();
    const log = page.getByRole('region', { name: 'Extraction log' });
    await log.getByText('accepted feedback_real_db.md').waitFor();
    await log.getByText('1 turn: 1 queued').waitFor();
    expect(errors).toEqual([]);
  });

  it('accepting an update over a change made since shows both, writes the chosen one, and its toast undoes it (review x1 F5)', async () => {
    const sqlFile = path.join(memoryDir, 'feedback_sql.md');
    const t = new TranscriptBuilder({ sessionId: 'session-e2e', cwd, uuidPrefix: 'upd', start: '2026-03-05T09:10:00.000Z' });
    t.prompt('Keep every query in the sql folder from now on.').assistant('Noted.', { stopReason: 'end_turn' });
    await fs.appendFile(transcript, t.take());
    const card = page.getByRole('article', { name: 'Proposal No ORM' });
    await card.waitFor({ timeout: 30_000 });
    // Meanwhile Claude Code rewrites the same line of the memory.
    const now = '---\nname: No ORM\ndescription: We write SQL by hand\ntype: feedback\n---\nThe ORM hid N+1 queries and slow joins (Claude Code, later).\n';
    await fs.writeFile(sqlFile, now);

    await card.getByRole('button', { name: 'Accept' }).click();
    await page.getByText('feedback_sql.md was changed since this update was proposed, and the change overlaps it', { exact: false }).waitFor();
    const compare = card.getByRole('region', { name: 'Compare feedback_sql.md with the proposal' });
    await compare.getByRole('region', { name: 'The memory as it is now' }).getByText('slow joins (Claude Code, later)').waitFor();
    await compare.getByRole('region', { name: 'The proposal' }).getByText('the SQL lives in the sql folder').waitFor();
    await page.screenshot({ path: artifact('07b-review-compare.png') });
    expect(await fs.readFile(sqlFile, 'utf8')).toBe(now);

    await compare.getByRole('button', { name: 'Take the proposal' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Saved feedback_sql.md.' });
    await toast.waitFor();
    await card.waitFor({ state: 'detached' });
    expect(await fs.readFile(sqlFile, 'utf8')).toContain('the SQL lives in the sql folder');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByText('Undone.').waitFor();
    expect(await fs.readFile(sqlFile, 'utf8')).toBe(now);
    expect(errors).toEqual([]);
  });

  it('Live sessions shows the session with its counters and distance to the next update', async () => {
    await page.getByRole('button', { name: 'Live sessions' }).click();
    const table = page.getByRole('table', { name: 'Sessions' });
    await table.getByText('session-').waitFor({ timeout: 20_000 });
    expect(await table.textContent()).toContain(cwd);
    await page.getByLabel('Session Memory note').getByText('No note yet', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Update now' }).click();
    await page.getByLabel('Session Memory note').getByRole('heading', { name: 'Current task' }).waitFor();
    // The time of the last update, 24-hour as everywhere else in the app (it said "10:04:05 PM").
    await expect.poll(() => table.textContent()).toMatch(/1 · .*\b\d\d:\d\d:\d\d\b/);
    expect(await table.textContent()).not.toMatch(/\d\d:\d\d:\d\d\s?[AP]M/i);
    await page.screenshot({ path: artifact('09-live-sessions.png') });
  });

  it('"Connect to Claude Code" shows the settings.json diff before writing, then disconnects cleanly', async () => {
    const settingsFile = path.join(home, 'settings.json');
    await fs.writeFile(settingsFile, '{\n  "model": "opus"\n}\n');
    await page.getByRole('button', { name: 'Settings' }).click();
    // s45 walk: not connected, the line said "not connected … · Memdir receives the hook events": Claude Code sends none.
    const state = page.locator('p', { has: page.locator('code', { hasText: settingsFile }) }).filter({ hasText: /connected/ });
    await state.getByText('not connected').waitFor();
    expect(await state.textContent()).not.toMatch(/receives the hook events|spooled/);
    expect(await state.textContent()).toContain('Memdir watches the transcripts');
    await page.getByRole('button', { name: 'Connect to Claude Code…' }).click();
    const plan = page.getByLabel('Planned change to settings.json');
    await plan.getByText('hook SessionStart --data-dir', { exact: false }).first().waitFor();
    expect(await fs.readFile(settingsFile, 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    await page.screenshot({ path: artifact('08-connect-hooks.png') });
    await plan.getByRole('button', { name: 'Write settings.json' }).click();
    await page.getByText('Connected to Claude Code.', { exact: false }).waitFor();
    await state.getByText('Memdir receives the hook events').waitFor();
    const connected = JSON.parse(await fs.readFile(settingsFile, 'utf8')) as { model: string; hooks: Record<string, unknown[]> };
    expect(connected.model).toBe('opus');
    expect(Object.keys(connected.hooks)).toEqual(['Stop', 'PreCompact', 'SessionEnd', 'SessionStart']);

    await page.getByRole('button', { name: 'Disconnect…' }).click();
    await page.getByLabel('Planned change to settings.json').getByRole('button', { name: 'Write settings.json' }).click();
    await page.getByText('Disconnected from Claude Code.', { exact: false }).waitFor();
    expect(await fs.readFile(settingsFile, 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    expect(errors).toEqual([]);
  });

  it('the "Dream on a schedule" switch writes autoDreamEnabled to settings.json, and only that', async () => {
    const settingsFile = path.join(home, 'settings.json');
    const before = await fs.readFile(settingsFile, 'utf8');
    const toggle = page.getByRole('checkbox', { name: 'Dream on a schedule' });
    const wasOn = await toggle.isChecked();
    await toggle.click();
    await page.getByText(`"autoDreamEnabled": ${!wasOn}`, { exact: false }).first().waitFor();
    expect(await fs.readFile(settingsFile, 'utf8')).toBe(before.replace('"model": "opus"\n', `"model": "opus",\n  "autoDreamEnabled": ${!wasOn}\n`));
    expect(await toggle.isChecked()).toBe(!wasOn);
    await page.screenshot({ path: artifact('10-auto-dream-switch.png') });
    expect(errors).toEqual([]);
  });
});
