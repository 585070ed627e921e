/**
 * The recall playground in real Chromium against the real host, whose model provider talks to
 * the fake Anthropic server over HTTP (the only stand-in allowed: the model endpoint).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../src/main/llm/test-support/fake-anthropic.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`recall playground${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let fake: FakeAnthropic;
  let host: Host;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-recall-'));
    fake = await startFakeAnthropic();
    fake.setHandler((request) => {
      // Claude Code's selector (the playground's Claude Code mode) answers in its own schema.
      if (JSON.stringify(request.body?.system ?? '').includes('You are selecting memories'))
        return { kind: 'message', text: '{"selected_memories":["feedback_sql.md","nope.md"]}', usage: { input_tokens: 1200, output_tokens: 15 } };
      const prompt = JSON.stringify(request.body?.messages ?? '');
      // The model answers from the manifest it was sent: pick the SQL memory when it is listed.
      const files = prompt.includes('feedback_sql.md')
        ? [
            { file: 'feedback_sql.md', reason: 'The user is about to write database code: they want hand-written SQL.' },
            { file: 'not_there.md', reason: 'invented' },
          ]
        : [];
      return { kind: 'message', text: JSON.stringify({ selected: files }), usage: { input_tokens: 900, output_tokens: 40 } };
    });
    host = await startHost(['--home', path.join(root, 'none'), '--port', '0', '--data-dir', path.join(root, 'data')], {
      ANTHROPIC_API_KEY: 'sk-ant-api03-e2e-not-a-real-key',
      ANTHROPIC_BASE_URL: fake.url,
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fake?.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('Claude Code mode: what Claude Code would load, its request, a session that remembers what it loaded', async () => {
    await page.goto(host.url);
    await page.getByRole('button', { name: 'Open demo workspace' }).first().click();
    await page.getByRole('button', { name: '/demo/checkout-service' }).click();
    await page.getByRole('button', { name: 'Recall playground' }).click();
    await page.getByText('model online').waitFor();
    expect(await page.getByRole('button', { name: 'Claude Code', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await page.getByLabel('Query', { exact: true }).fill('add a query to fetch orders from the database');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const cc = page.getByRole('region', { name: 'Claude Code would load' });
    await cc.getByText('feedback_sql.md', { exact: true }).waitFor();
    await cc.getByText(/nope\.md/).waitFor();
    expect(await cc.textContent()).toMatch(/not in the manifest/);
    await page.getByText(/The request Claude Code sends/).click();
    const request = page.locator('.recall-request');
    await request.getByText(/^Available memories:/).waitFor();
    expect(await request.textContent()).toContain('Select memories relevant to:\nadd a query to fetch orders from the database');
    await page.screenshot({ path: artifact('06b-recall-claude-code.png'), fullPage: true });
    const selector = fake.messageRequests().filter((r) => JSON.stringify(r.body?.system).includes('You are selecting memories'));
    expect(selector).toHaveLength(1);
    expect(selector[0]!.body?.output_config).toBeTruthy();
    expect(JSON.stringify(selector[0]!.body)).not.toContain('sqlc-generated helpers');

    // The same session: the file already loaded is not loaded again, and the selector sees the first query.
    await page.getByLabel('Query', { exact: true }).fill('now write the orders report query');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    await cc.getByText('loads nothing').waitFor();
    expect(await cc.textContent()).toMatch(/already loaded earlier in this session/);
    await page
      .getByLabel('Session')
      .getByText(/2 queries so far/)
      .waitFor();
    await page.getByRole('button', { name: 'New session' }).click();
    expect(await page.getByLabel('Session').count()).toBe(0);
  });

  it('Claude Code mode: the memories past the 200 newest can never be recalled today', async () => {
    await page.evaluate("location.hash = '#/p/-demo-data-pipeline/recall'");
    await page.getByLabel('Query', { exact: true }).fill('which feed arrives hourly');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const never = page.getByRole('region', { name: 'Never recalled today' });
    await never.getByText(/To make room/).waitFor();
    expect(await never.locator('.badge').textContent()).toBe('15');
    await page.screenshot({ path: artifact('06c-recall-never-recalled.png'), fullPage: true });
  });

  it('Memdir explained: the model and the local ranker side by side, and explains a memory that was not picked', async () => {
    await page.evaluate("location.hash = '#/p/-demo-checkout-service/recall'");
    await page.getByRole('button', { name: 'Memdir explained' }).click();
    await page.getByLabel('Query', { exact: true }).fill('add a query to fetch orders from the database');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const model = page.getByRole('region', { name: 'Model side query', exact: true });
    await model.getByText('feedback_sql.md').waitFor();
    await model.getByText('they want hand-written SQL').waitFor();
    await model
      .getByText(/not_there\.md \(/)
      .first()
      .waitFor();
    expect(await model.textContent()).toMatch(/900 in \/ 40 out tokens/);
    const local = page.getByRole('region', { name: 'Local ranker', exact: true });
    await local.getByText('feedback_sql.md').waitFor();
    await page.getByLabel('A memory that was not picked').selectOption('reference_grafana.md');
    await page.getByLabel('Explanation').waitFor();
    await page.screenshot({ path: artifact('06-recall-playground.png') });
    // The side request carried frontmatter only, never a body.
    const sent = JSON.stringify(fake.messageRequests().map((r) => r.body));
    expect(sent).toContain('feedback_sql.md');
    expect(sent).not.toContain('sqlc-generated helpers');
  });

  it('Memdir explained says why each memory was or was not chosen, in the words they are written in', async () => {
    // The query before recalled feedback_sql.md in this session: start a new one.
    await page.getByLabel('Memdir session').getByRole('button', { name: 'New session' }).click();
    await page.getByLabel('Query', { exact: true }).fill('fetching orders from databases');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const why = page.getByRole('region', { name: 'Why: model side query' });
    await expect.poll(() => why.getByLabel('Query words').textContent()).toContain('“databases”');
    const sql = why.locator('li[data-file="feedback_sql.md"]');
    expect(await sql.getAttribute('data-fate')).toBe('chosen');
    expect(await sql.textContent()).toContain('The model chose it: The user is about to write database code: they want hand-written SQL.');
    // Passed over by the model, with the local ranker's view of it.
    const tests = why.locator('li[data-file="feedback_tests.md"]');
    expect(await tests.getAttribute('data-fate')).toBe('not-chosen');
    expect(await tests.textContent()).toMatch(/The model did not choose it\. The local ranker ranks it \d+(st|nd|rd|th), matching “databases”/);
    await why.screenshot({ path: artifact('06e-recall-why-model.png') });
    await page.getByRole('group', { name: 'Explain which choice' }).getByRole('button', { name: 'the local ranker' }).click();
    const local = page.getByRole('region', { name: 'Why: local ranker' });
    // The query said "databases"; the memory says "database": highlighted as written, never as the stem "databas".
    const marks = await local.locator('li[data-file="feedback_tests.md"] mark').allTextContents();
    expect(marks).toContain('database');
    expect(marks).not.toContain('databas');
    expect(await local.getByLabel('Query words').textContent()).toContain('“databases”');
    await local.getByText(/memories share no word with the query/).waitFor();
    await page.screenshot({ path: artifact('06d-recall-explained.png'), fullPage: true });
    // The session remembers: what was recalled is not chosen again, and says so.
    await page.getByLabel('Query', { exact: true }).fill('orders database query');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    await page
      .getByLabel('Memdir session')
      .getByText(/already recalled, never chosen again: .*feedback_sql\.md/)
      .waitFor();
    await page.getByRole('group', { name: 'Explain which choice' }).getByRole('button', { name: 'the model' }).click();
    const again = page.getByRole('region', { name: 'Why: model side query' }).locator('li[data-file="feedback_sql.md"]');
    await expect.poll(() => again.getAttribute('data-fate')).toBe('already-loaded');
    await page.getByLabel('Memdir session').getByRole('button', { name: 'New session' }).click();
  });

  // s45 walk: at 320 px the two methods stayed side by side, the local ranker's column ran past the window's
  // right edge and its words were cut off ("the nam", "file name" clipped).
  it('Memdir explained at 320 px: the model and the local ranker stack, each whole inside the window', async () => {
    const narrow = await browser.newPage({ viewport: { width: 320, height: 700 } });
    try {
      await narrow.goto(`${host.url}#/p/-demo-checkout-service/recall`);
      await narrow.getByRole('button', { name: 'Memdir explained' }).click();
      await narrow.getByLabel('Query', { exact: true }).fill('add a query to fetch orders from the database');
      await narrow.getByRole('button', { name: 'Recall', exact: true }).click();
      const local = narrow.getByRole('region', { name: 'Local ranker', exact: true });
      await local.getByText('feedback_sql.md').waitFor();
      await narrow.screenshot({ path: artifact('06e-recall-explained-320.png'), fullPage: true });
      const edge = narrow.viewportSize()!.width;
      for (const name of ['Model side query', 'Local ranker']) {
        const box = (await narrow.getByRole('region', { name, exact: true }).boundingBox())!;
        expect(box.x + box.width, `${name} ends inside the ${edge} px window`).toBeLessThanOrEqual(edge);
      }
    } finally {
      await narrow.close();
    }
  });

  it('Memdir explained: falls back to the local ranker, with the reason, when the model fails', async () => {
    fake.setHandler(() => ({ kind: 'error', status: 500, retryAfterMs: 1 }));
    await page.getByLabel('Query', { exact: true }).fill('which grafana dashboard shows checkout latency');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const model = page.getByRole('region', { name: 'Model side query', exact: true });
    await model.getByText(/Fell back to the local ranker/).waitFor();
    await model.getByText('reference_grafana.md').waitFor();
  });
});
