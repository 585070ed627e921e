/**
 * Settings says where the Claude Code home it looks at came from, in words a user knows (the
 * `--home` they typed, `$CLAUDE_CONFIG_DIR`), not the app's internal name for it ("(flag)").
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

describe.skipIf(!HAS_BROWSER)(`Settings, the Claude Code home${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  const hosts: Host[] = [];
  let browser: Browser;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-settings-home-'));
    await fs.mkdir(path.join(root, 'home', 'projects', '-work-app', 'memory'), { recursive: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all(hosts.map((h) => h.stop()));
    await fs.rm(root, { recursive: true, force: true });
  });

  async function homeLine(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
    const host = await startHost([...args, '--port', '0', '--data-dir', path.join(root, `data-${hosts.length}`)], env);
    hosts.push(host);
    const page = await browser.newPage();
    await page.goto(`${host.url}#/settings`);
    const line = page.getByText(/^Looking at/);
    await expect.poll(() => line.innerText()).toContain(path.join(root, 'home'));
    const text = await line.innerText();
    await page.close();
    return text;
  }

  it('names the --home the host was started with, and $CLAUDE_CONFIG_DIR when that chose it', async () => {
    const flag = await homeLine(['--home', path.join(root, 'home')], {});
    expect(flag).toContain('from --home');
    expect(flag).not.toContain('(flag)');
    const env = await homeLine([], { CLAUDE_CONFIG_DIR: path.join(root, 'home') });
    expect(env).toContain('from $CLAUDE_CONFIG_DIR');
    expect(env).not.toContain('(env)');
  });
});
