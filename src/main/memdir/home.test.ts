import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expandTilde, projectsRoot, resolveHome, userHomeDir } from './home.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-home-')));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('resolveHome (R-HOME)', () => {
  it('is ~/.claude when CLAUDE_CONFIG_DIR is not set', () => {
    expect(resolveHome({ HOME: tmp })).toBe(path.join(tmp, '.claude'));
  });

  it('treats an empty CLAUDE_CONFIG_DIR as not set', () => {
    expect(resolveHome({ HOME: tmp, CLAUDE_CONFIG_DIR: '' })).toBe(path.join(tmp, '.claude'));
  });

  it('uses CLAUDE_CONFIG_DIR when set, even if it does not exist', async () => {
    const configured = path.join(tmp, 'nowhere', 'claude');
    expect(resolveHome({ HOME: tmp, CLAUDE_CONFIG_DIR: configured })).toBe(configured);
    await expect(fs.stat(configured)).rejects.toThrow();
  });

  it('expands ~ in CLAUDE_CONFIG_DIR', () => {
    expect(resolveHome({ HOME: tmp, CLAUDE_CONFIG_DIR: '~/alt-claude' })).toBe(path.join(tmp, 'alt-claude'));
    expect(resolveHome({ HOME: tmp, CLAUDE_CONFIG_DIR: '~' })).toBe(tmp);
  });

  it('makes a relative CLAUDE_CONFIG_DIR absolute against the current directory', () => {
    expect(resolveHome({ HOME: tmp, CLAUDE_CONFIG_DIR: 'rel/claude' })).toBe(path.resolve('rel/claude'));
  });

  it('normalises the home to NFC, as Claude Code does', () => {
    const nfd = path.join(tmp, 'cafe\u0301');
    expect(resolveHome({ HOME: tmp, CLAUDE_CONFIG_DIR: nfd })).toBe(path.join(tmp, 'caf\u00e9'));
  });
});

describe('expandTilde', () => {
  it('expands only a leading ~ or ~/', () => {
    expect(expandTilde('~', { HOME: tmp })).toBe(tmp);
    expect(expandTilde('~/a/b', { HOME: tmp })).toBe(path.join(tmp, 'a', 'b'));
    expect(expandTilde('~other/a', { HOME: tmp })).toBe('~other/a');
    expect(expandTilde('a/~/b', { HOME: tmp })).toBe('a/~/b');
  });

  it('falls back to the OS home when HOME is empty', () => {
    expect(userHomeDir({ HOME: '' })).toBe(os.homedir());
  });
});

describe('projectsRoot', () => {
  it('is <home>/projects', () => {
    expect(projectsRoot('/h/.claude')).toBe(path.join('/h/.claude', 'projects'));
  });
});
