/**
 * A refusal a choice overrules is offered with that choice in the app, as the CLI names its flag:
 * connecting the Team sync tab to a server on another machine over plain http is refused (the
 * token would travel unencrypted), and the refusal carries the button that allows plain http and
 * connects — one click, the box ticked, the connection made. The server listens on this machine's
 * own network address (not loopback): what another machine's would be, as far as the rule can tell.
 * (`[::ffff:127.0.0.1]` served here before; it is this machine, and the loopback rule knows it now.)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../src/server/test-support/server-process.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, startHost } from './support/host.js';

requireBrowser();

const MEMDIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../out/cli/memdir.js');
const run = promisify(execFile);

/** This machine's address on a network (IPv4, not loopback), or undefined when it has none. */
const NETWORK_ADDRESS = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
const SKIPPED = !HAS_BROWSER ? ` (skipped: ${MISSING_BROWSER})` : NETWORK_ADDRESS ? '' : ' (skipped: this machine has no network address but loopback)';

describe.skipIf(SKIPPED !== '')(`a refusal the app can overrule${SKIPPED}`, () => {
  let root: string;
  let server: ServerProcess;
  let token: string;
  let browser: Browser;
  let host: Host;
  const errors: string[] = [];

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-overrule-')));
    const db = path.join(root, 'server', 'team-sync.sqlite');
    server = await startServerProcess([MEMDIR], db, { rate: 1000, timeoutMs: 20_000, host: NETWORK_ADDRESS });
    await run(process.execPath, [MEMDIR, 'server', 'admin', 'create-team', 'platform', '--db', db]);
    const { stdout } = await run(process.execPath, [MEMDIR, 'server', 'admin', 'issue-token', 'platform', '--member', 'ann', '--db', db, '--json']);
    token = (JSON.parse(stdout) as { token: string }).token;
    const memory = path.join(root, 'home', 'projects', '-work-app', 'memory');
    await fs.mkdir(path.join(memory, 'team'), { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '');
    browser = await launchBrowser();
    host = await startHost(['--home', path.join(root, 'home'), '--port', '0', '--data-dir', path.join(root, 'data')]);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('plain http to another machine: refused with the choice that allows it, which connects in one click', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(host.url);
    await page.getByRole('button', { name: '-work-app' }).first().click();
    await page.getByRole('button', { name: 'Team sync', exact: true }).click();
    const form = page.getByRole('form', { name: 'Connect to a sync server' });
    const elsewhere = server.url;
    expect(elsewhere).toBe(`http://${NETWORK_ADDRESS}:${new URL(server.url).port}`);
    await form.getByLabel('Server URL', { exact: true }).fill(elsewhere);
    await form.getByLabel('Team', { exact: true }).fill('platform');
    await form.getByLabel('Token', { exact: true }).fill(token);
    await form.getByRole('button', { name: 'Connect', exact: true }).click();

    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('would send your token unencrypted');
    const anyway = refusal.getByRole('button', { name: 'Allow plain http and connect' });
    expect(await anyway.isVisible()).toBe(true);
    expect(await form.getByRole('checkbox').isChecked()).toBe(false);
    // The refusal connected nothing.
    expect(await page.getByRole('region', { name: 'Sync state' }).count()).toBe(0);

    await anyway.click();
    const state = page.getByRole('region', { name: 'Sync state' });
    await state.waitFor({ timeout: 20_000 });
    expect(await state.textContent()).toContain('you are ann');
    expect(await state.textContent()).toContain(NETWORK_ADDRESS);
    expect(errors).toEqual([]);
  });
});
