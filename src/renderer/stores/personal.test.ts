import { describe, expect, it } from 'vitest';
import type { PersonalProjectStatus } from '../../shared/contract/personal.js';
import { connectProblem, personalHeadline } from './personal.js';

const project = (over: Partial<PersonalProjectStatus>): PersonalProjectStatus => ({
  dir: '-w',
  memoryDir: '/m',
  account: true,
  enabled: true,
  identity: { id: 'git-remote:github.com/a/b', source: 'repository', detail: 'remote github.com/a/b' },
  suggested: null,
  state: 'synced',
  syncing: false,
  lastPullAt: null,
  lastPushAt: null,
  files: 2,
  waiting: [],
  conflicts: [],
  error: null,
  ...over,
});

describe('personal sync in the renderer', () => {
  it('sets a new passphrase only when typed twice, long enough, with the warning acknowledged', () => {
    const input = { server: 'https://s', token: 'mdt_x', passphrase: 'long enough passphrase', again: '', acknowledged: false };
    expect(connectProblem(input, 'connect', 12)).toBeNull();
    expect(connectProblem({ ...input, passphrase: '' }, 'connect', 12)).toMatch(/passphrase/);
    expect(connectProblem(input, 'confirm', 12)).toBe('Type the same passphrase twice.');
    expect(connectProblem({ ...input, again: input.passphrase }, 'confirm', 12)).toBe('Confirm that you have read what losing the passphrase means.');
    expect(connectProblem({ ...input, again: input.passphrase, acknowledged: true }, 'confirm', 12)).toBeNull();
    expect(connectProblem({ ...input, passphrase: 'short', again: 'short', acknowledged: true }, 'confirm', 12)).toBe(
      'A new passphrase needs at least 12 characters.',
    );
  });

  it("says where a project's private memory stands", () => {
    expect(personalHeadline(project({ account: false }))).toBe('This machine is not connected to a personal space.');
    expect(personalHeadline(project({ enabled: false }))).toBe('Your private memory of this project stays on this machine.');
    expect(personalHeadline(project({}))).toBe('In step with your other machines.');
    expect(personalHeadline(project({ state: 'pending', waiting: [{ key: 'a.md', reason: 'pending', detail: '' }] }))).toBe(
      '1 file not on your other machines yet.',
    );
    expect(personalHeadline(project({ state: 'error', error: { code: 'key-mismatch', message: 'another key', at: '' } }))).toBe('Sync error: another key');
  });
});
