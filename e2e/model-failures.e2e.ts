/**
 * A model endpoint that misbehaves, seen in the app (real Chromium, real host, the fake Anthropic
 * server over HTTP): what the person reads is a sentence that says what to do, never a program's
 * error or the key; a dream whose model fails or is cancelled leaves the memory as it was, and the
 * next one works.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, type FakeReply, startFakeAnthropic } from '../src/main/llm/test-support/fake-anthropic.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const KEY = 'sk-ant-api03-e2e-model-failures-not-a-real-key-0123';
/** What a person must never read: a program's error, a parser's words, an errno code, the key. */
const UNREADABLE = /Cannot read|undefined|Unexpected (end|token)|JSON input|fetch failed|TypeError|SyntaxError|ECONN|sk-ant-api03-e2e/;

describe.skipIf(!HAS_BROWSER)(`model failures in the app${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let fake: FakeAnthropic;
  let host: Host;
  let hostOutput = '';
  let browser: Browser;
  let page: Page;
  /** What the fake answers every model call with. */
  let reply: FakeReply = { kind: 'message', text: 'ok' };
  const memoryDir = () => path.join(root, 'data', 'demo', 'claude-home', 'projects', '-demo-checkout-service', 'memory');
  async function files(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const name of (await fs.readdir(memoryDir())).sort()) {
      if (name.endsWith('.md')) out[name] = await fs.readFile(path.join(memoryDir(), name), 'utf8');
    }
    return out;
  }

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-model-fail-'));
    fake = await startFakeAnthropic();
    fake.setHandler(() => reply);
    await fs.mkdir(path.join(root, 'data'), { recursive: true });
    await fs.writeFile(path.join(root, 'data', 'settings.json'), JSON.stringify({ model: { maxRetries: 0, timeoutMs: 60_000 }, recall: { timeoutMs: 5_000 } }));
    host = await startHost(['--home', path.join(root, 'none'), '--port', '0', '--data-dir', path.join(root, 'data')], {
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: fake.url,
    });
    host.process.stdout!.on('data', (d: string) => (hostOutput += d));
    host.process.stderr!.on('data', (d: string) => (hostOutput += d));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    await page.goto(host.url);
    await page.getByRole('button', { name: 'Open demo workspace' }).first().click();
    await page.getByRole('button', { name: '/demo/checkout-service' }).click();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await fake?.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("recall: a gateway's web page instead of an answer reads as a sentence that points at the base URL", async () => {
    reply = { kind: 'malformed', body: '<html><body><h1>502 Bad Gateway</h1></body></html>', contentType: 'text/html' };
    await page.getByRole('button', { name: 'Recall playground' }).click();
    await page.getByRole('button', { name: 'Memdir explained' }).click();
    await page.getByLabel('Query', { exact: true }).fill('add a query to fetch orders from the database');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const fellBack = page.getByText(/^Fell back to the local ranker: /).first();
    await fellBack.waitFor();
    expect(await fellBack.textContent()).toMatch(/is not an answer of the Messages API .*Check the base URL in Settings/);
    expect(await page.locator('body').textContent()).not.toMatch(UNREADABLE);
    await page.screenshot({ path: artifact('s40-recall-gateway-page.png'), fullPage: true });
  });

  it('dream: a refused key runs the offline rules, says why and what to do, never shows the key', async () => {
    reply = { kind: 'error', status: 401, message: `invalid x-api-key ${KEY}` };
    await page.getByRole('button', { name: 'Dream', exact: true }).click();
    await page.getByRole('button', { name: 'Dream now' }).click();
    const banner = page.getByText(/^The offline rules ran instead of the model: /);
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toMatch(/The API refused the key \(HTTP 401\).*Check the key in Settings or ANTHROPIC_API_KEY\./);
    expect(await page.locator('body').textContent()).not.toMatch(UNREADABLE);
    expect(hostOutput).not.toContain(KEY);
    // The playground's model badge says so too (it said "model online" while every call was refused).
    await page.getByRole('button', { name: 'Recall playground' }).click();
    await page.getByText('model error').waitFor();
    await page
      .getByText(/The API refused the key \(HTTP 401\)/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Dream', exact: true }).click();
    for (const name of await fs.readdir(path.join(root, 'data'), { recursive: true })) {
      const file = path.join(root, 'data', String(name));
      if ((await fs.stat(file)).isFile() && name !== 'settings.json') expect(await fs.readFile(file, 'utf8'), String(name)).not.toContain(KEY);
    }
  });

  it('dream: cancelled while the model hangs, nothing is written; the next dream works and is undone whole', async () => {
    const before = await files();
    reply = { kind: 'hang' };
    const dreams = page.getByRole('list', { name: 'Dreams' });
    const rows = (status: RegExp) => dreams.getByRole('button').filter({ hasText: status });
    const sent = () => fake.messageRequests().filter((r) => JSON.stringify(r.body?.tools ?? '').includes('write_memory')).length;
    const asked = sent();
    await page.getByRole('button', { name: 'Dream now' }).click();
    await expect.poll(sent).toBe(asked + 1);
    await page.getByRole('button', { name: 'Cancel dream' }).click();
    await expect.poll(() => rows(/cancelled/).count(), { timeout: 30_000 }).toBe(1);
    expect(await files()).toEqual(before);
    expect(await page.locator('body').textContent()).not.toMatch(UNREADABLE);

    // The model answers again: the next dream runs with it, and its one undo puts every file back.
    reply = {
      kind: 'message',
      stopReason: 'tool_use',
      content: [{ type: 'tool_use', id: 'toolu_finish', name: 'finish', input: { summary: 'Nothing to merge.' } }],
    };
    const done = await rows(/completed|no-changes/).count();
    await page.getByRole('button', { name: 'Dream now' }).click();
    await expect.poll(() => rows(/completed|no-changes/).count(), { timeout: 30_000 }).toBe(done + 1);
    await rows(/completed|no-changes/)
      .first()
      .click();
    await page.getByText("The model's summary: Nothing to merge.").waitFor();
    if (await page.getByRole('button', { name: 'Revert this dream' }).count()) {
      await page.getByRole('button', { name: 'Revert this dream' }).click();
      await page.getByText(/^Reverted just now: /).waitFor();
      expect(await files()).toEqual(before);
    }
    await page.screenshot({ path: artifact('s40-dream-after-cancel.png'), fullPage: true });
  });
});
