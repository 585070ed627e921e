/**
 * The desktop app's behaviour, decided in plain Node: which events notify and where a click
 * leads, what `memdir://` links open, what keeps Memdir in the tray, the `memdir` command, and
 * the calls the Electron shell serves (with a shell that records what it was asked to do — the
 * one stand-in, for Electron itself).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { createAppDispatcher } from '../api/index.js';
import type { Dispatcher } from '../api/dispatch.js';
import type { Theme } from '../../shared/app-settings.js';
import { buildFixtureHome, type FixtureHome } from '../memdir/test-support/fixture-home.js';
import { describeBackgroundWork } from './background-work.js';
import { deepLinkIn, deepLinkTarget, projectOfLink } from './deep-link.js';
import type { DesktopShell } from './desktop-shell.js';
import { commandInstallStatus, commandTarget, installMemdirCommand } from './install-command.js';
import { autostartFile, autostartProgram, readAutostart, writeAutostart } from './linux-autostart.js';
import { notificationFor } from './notifications.js';

let root: string;
let fixture: FixtureHome;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-desktop-')));
  fixture = await buildFixtureHome(path.join(root, 'fixture'));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('notifications', () => {
  const alert = (kind: 'secret' | 'sync' | 'security' | 'error') => ({
    type: 'alert' as const,
    alert: {
      id: 'a1',
      kind,
      title: 'A secret kept team/db.md from being shared',
      message: 'Line 3: an AWS key.',
      dir: '-work-shop',
      time: '2026-12-03T10:00:00Z',
    },
  });

  it('come for secret alerts and sync conflicts only, and a click opens where to act', () => {
    expect(notificationFor(alert('secret'))).toEqual({ title: 'A secret kept team/db.md from being shared', body: 'Line 3: an AWS key.', hash: '#/alerts' });
    expect(notificationFor({ type: 'team-changed', dir: '-work-shop', newConflicts: ['conventions.md'] })).toEqual({
      title: 'A team memory changed on both sides',
      body: 'team/conventions.md: your unpushed edit was kept as a conflict. Choose which version stays.',
      hash: '#/p/-work-shop/team',
    });
    expect(notificationFor({ type: 'team-changed', dir: '-work-shop', newConflicts: ['a.md', 'b.md'] })?.body).toMatch(/^2 team memories: /);
    for (const quiet of [
      alert('sync'),
      alert('security'),
      alert('error'),
      { type: 'team-changed' as const, dir: '-work-shop', newConflicts: [] },
      { type: 'team-changed' as const, dir: '-work-shop' },
      { type: 'projects-changed' as const, dirs: ['x'], external: true },
      { type: 'alerts-changed' as const, open: 3 },
    ]) {
      expect(notificationFor(quiet)).toBeNull();
    }
  });
});

describe('memdir:// links', () => {
  it('are found among the arguments a second instance or the first start receives', () => {
    expect(deepLinkIn(['/opt/Memdir/memdir', '--no-sandbox', 'memdir://project/-work-shop'])).toBe('memdir://project/-work-shop');
    expect(deepLinkIn(['/opt/Memdir/memdir', '--home', '/h'])).toBeNull();
    expect(projectOfLink('memdir://project/-work-shop/')).toBe('-work-shop');
    expect(projectOfLink('memdir://project/%2DUsers%2Dme')).toBe('-Users-me');
    for (const bad of ['memdir://settings', 'memdir://project/', 'memdir://project/a/b', 'https://project/x', 'not a url', 'memdir://project/%E0%A4'])
      expect(projectOfLink(bad)).toBeNull();
  });

  it('open a known project, and say in the app when the project is unknown or the link is not one', async () => {
    const ctx = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data-links'), env: {} });
    try {
      const find = (dir: string) => ctx.project(dir);
      expect(await deepLinkTarget('memdir://project/-work-shop', find)).toEqual({ hash: '#/p/-work-shop/memories', message: null });
      expect(await deepLinkTarget('memdir://project/-work-gone', find)).toEqual({
        hash: '#/',
        message: `Memdir cannot open memdir://project/-work-gone: There is no project "-work-gone" in ${fixture.home}.`,
      });
      expect((await deepLinkTarget('memdir://project/..', find)).message).toMatch(/^Memdir cannot open memdir:\/\/project\/\.\.: /);
      expect(await deepLinkTarget('memdir://dream', find)).toEqual({
        hash: '#/',
        message: 'Memdir cannot open memdir://dream: its links look like memdir://project/<project folder name>.',
      });
    } finally {
      await ctx.close();
    }
  });
});

describe('background work', () => {
  it('is said in words; none means closing the window may quit', () => {
    expect(describeBackgroundWork({ extraction: true, sessionNotes: false, dreamingProjects: 1, syncedProjects: 2 })).toEqual([
      'extracting memories after each Claude Code turn',
      'automatic dreams in 1 project',
      'team sync of 2 projects',
    ]);
    expect(describeBackgroundWork({ extraction: false, sessionNotes: false, dreamingProjects: 0, syncedProjects: 0 })).toEqual([]);
  });
});

describe('start at login on Linux', () => {
  it('is an autostart entry that starts the AppImage (or the binary), removed to turn it off', async () => {
    const file = autostartFile({ XDG_CONFIG_HOME: path.join(root, 'config') });
    expect(file).toBe(path.join(root, 'config', 'autostart', 'dev.memdir.app.desktop'));
    expect(autostartFile({}, '/home/me')).toBe('/home/me/.config/autostart/dev.memdir.app.desktop');
    expect(await readAutostart(file)).toBe(false);
    const program = autostartProgram({ APPIMAGE: '/home/me/Apps/Memdir "1".AppImage' }, '/tmp/.mount_x/memdir');
    await writeAutostart(file, true, program);
    expect(await fs.readFile(file, 'utf8')).toContain('\nExec="/home/me/Apps/Memdir \\\\"1\\\\".AppImage"\n');
    expect(await readAutostart(file)).toBe(true);
    await fs.writeFile(file, `${await fs.readFile(file, 'utf8')}Hidden=true\n`);
    expect(await readAutostart(file)).toBe(false);
    await writeAutostart(file, false, program);
    await expect(fs.access(file)).rejects.toThrow();
    expect(autostartProgram({}, '/opt/Memdir/memdir')).toBe('/opt/Memdir/memdir');
  });
});

describe('the memdir command', () => {
  let home: string;
  let script: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(root, 'home-'));
    script = path.join(root, 'Memdir', 'resources', 'bin', 'memdir');
    await fs.mkdir(path.dirname(script), { recursive: true });
    await fs.writeFile(script, '#!/bin/sh\necho memdir\n', { mode: 0o755 });
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  it('is installed as a link to the appʼs script in ~/.local/bin, once, and says when that is not on PATH', async () => {
    const options = { script, env: { PATH: '/usr/bin:/bin' }, home, platform: 'linux' as const };
    const target = path.join(home, '.local', 'bin', 'memdir');
    expect(await commandInstallStatus(options)).toEqual({
      installable: true,
      path: target,
      installed: false,
      note: `${path.dirname(target)} is not on your PATH: add it (for example in ~/.profile) to type memdir in a terminal.`,
    });
    expect(await installMemdirCommand(options)).toMatchObject({ installed: true, path: target });
    expect(await fs.readlink(target)).toBe(script);
    expect(await installMemdirCommand({ ...options, env: { PATH: `/usr/bin:${path.dirname(target)}` } })).toEqual({
      installable: true,
      path: target,
      installed: true,
      note: null,
    });
  });

  it('never replaces another memdir there, and names it', async () => {
    const target = path.join(home, '.local', 'bin', 'memdir');
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, '#!/bin/sh\n# npm link of a checkout\n');
    const options = { script, env: {}, home, platform: 'linux' as const };
    expect(await commandInstallStatus(options)).toMatchObject({
      installable: false,
      installed: false,
      note: `${target} already exists and is not this app's command; Memdir leaves it alone (remove it to install this one).`,
    });
    await expect(installMemdirCommand(options)).rejects.toThrow('already exists');
    expect(await fs.readFile(target, 'utf8')).toBe('#!/bin/sh\n# npm link of a checkout\n');
  });

  it('is not offered from a checkout, and goes to WindowsApps on Windows', async () => {
    expect(await commandInstallStatus({ script: null, env: {}, home })).toMatchObject({ installable: false, path: null });
    expect(commandTarget({ script, env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' }, platform: 'win32' })).toBe(
      'C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\memdir.cmd',
    );
  });
});

describe('the desktop calls', () => {
  let ctx: AppContext;
  let api: Dispatcher;
  const asked: string[] = [];
  let loginItem = false;
  const shell: DesktopShell = {
    revealFile: (file) => void asked.push(`reveal ${file}`),
    openFile: async (file) => (asked.push(`open ${file}`), ''),
    openAtLogin: async () => loginItem,
    setOpenAtLogin: async (on) => void (loginItem = on),
    applyTheme: (theme: Theme) => void asked.push(`theme ${theme}`),
  };

  beforeAll(async () => {
    ctx = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data-calls'), env: {}, desktop: shell });
    api = createAppDispatcher(ctx);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('reveal and open a memory file, confined to its memory folder', async () => {
    const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
    expect(await api.call('desktop.revealMemory', { dir: '-work-noindex', scope: 'private', file: 'feedback_tabs.md' })).toEqual({
      ok: true,
      result: { path: path.join(memoryDir, 'feedback_tabs.md') },
    });
    expect(await api.call('desktop.openMemory', { dir: '-work-noindex', file: 'feedback_tabs.md' })).toMatchObject({ ok: true });
    expect(asked).toEqual([`reveal ${path.join(memoryDir, 'feedback_tabs.md')}`, `open ${path.join(memoryDir, 'feedback_tabs.md')}`]);
    expect(await api.call('desktop.revealMemory', { dir: '-work-noindex', file: '../../../settings.md' })).toMatchObject({
      ok: false,
      error: { code: 'invalid-name' },
    });
    expect(await api.call('desktop.openMemory', { dir: '-work-noindex', file: 'gone.md' })).toMatchObject({
      ok: false,
      error: { code: 'not-found', message: 'gone.md no longer exists; it may have been deleted or renamed outside Memdir.' },
    });
    expect(asked).toHaveLength(2);
  });

  it('switch start at login, follow the theme, and report the background work', async () => {
    const result = await api.call('desktop.setOpenAtLogin', { on: true });
    expect(result).toMatchObject({
      ok: true,
      result: { available: true, openAtLogin: true, background: expect.arrayContaining(['extracting memories after each Claude Code turn']) },
    });
    expect(await api.call('settings.update', { patch: { theme: 'dark' } })).toMatchObject({ ok: true });
    expect(asked.at(-1)).toBe('theme dark');
  });

  it('answer in words in the headless host, which has none of this', async () => {
    const host = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data-host'), env: {} });
    try {
      const hostApi = createAppDispatcher(host);
      expect(await hostApi.call('desktop.status', {})).toMatchObject({
        ok: true,
        result: { available: false, openAtLogin: null, command: { installable: false } },
      });
      expect(await hostApi.call('desktop.revealMemory', { dir: '-work-noindex', file: 'feedback_tabs.md' })).toEqual({
        ok: false,
        error: { code: 'unavailable', message: 'Only the desktop app can do this; the browser version cannot reach other programs.' },
      });
    } finally {
      await host.close();
    }
  });
});
