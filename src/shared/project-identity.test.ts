import { describe, expect, it } from 'vitest';
import { compareIdentities, identitiesDisagree, identityKey, normalizeRemoteUrl, type ProjectIdentity } from './project-identity.js';

const id = (over: Partial<ProjectIdentity>): ProjectIdentity => ({
  source: 'repository',
  remotes: [],
  rootCommits: [],
  paths: [],
  gitDir: null,
  readAt: null,
  note: null,
  ...over,
});

describe('normalizeRemoteUrl', () => {
  it('makes the usual spellings of one GitHub remote one string', () => {
    const forms = [
      'git@github.com:Acme/App.git',
      'https://github.com/acme/app',
      'https://user:tok@github.com/acme/app.git/',
      'ssh://git@github.com:22/acme/app.git',
      'ssh://git@github.com/acme/app',
      'git://github.com/acme/app.git',
    ];
    expect(new Set(forms.map(normalizeRemoteUrl))).toEqual(new Set(['github.com/acme/app']));
  });
  it('keeps local paths apart from hosts', () => {
    expect(normalizeRemoteUrl('/srv/git/app.git')).toBe('file:///srv/git/app');
    expect(normalizeRemoteUrl('file:///srv/git/app.git')).toBe('file:///srv/git/app');
    expect(normalizeRemoteUrl('C:\\repos\\app')).toBe('file:///C:/repos/app');
    expect(normalizeRemoteUrl('  ')).toBeNull();
  });
  it('does not let another host or path pass as the same remote', () => {
    expect(normalizeRemoteUrl('git@gitlab.com:acme/app.git')).not.toBe(normalizeRemoteUrl('git@github.com:acme/app.git'));
    expect(normalizeRemoteUrl('git@github.com:acme/app2.git')).not.toBe(normalizeRemoteUrl('git@github.com:acme/app.git'));
  });
});

describe('compareIdentities', () => {
  it('names each piece of evidence two projects share', () => {
    const a = id({ remotes: ['github.com/acme/app'], rootCommits: ['a'.repeat(40)], paths: ['/home/me/src/my_app'] });
    const b = id({ remotes: ['github.com/acme/app', 'github.com/me/app'], rootCommits: ['a'.repeat(40)], paths: ['/work/my-app'] });
    expect(compareIdentities(a, b)).toEqual(['same-remote', 'same-root-commit', 'same-name']);
    expect(compareIdentities(a, id({ paths: ['/x/other'] }))).toEqual([]);
  });
  it('sees a repository without a remote and with a rewritten history as another project', () => {
    const before = id({ rootCommits: ['a'.repeat(40)], paths: ['/old/app'] });
    const rewritten = id({ rootCommits: ['b'.repeat(40)], paths: ['/new/app'] });
    expect(compareIdentities(before, rewritten)).toEqual(['same-name']);
    expect(identitiesDisagree(before, rewritten)).toBe(true);
    // Known only by paths: nothing to disagree with.
    expect(identitiesDisagree(id({ source: 'paths', paths: ['/old/app'] }), rewritten)).toBe(false);
  });
});

describe('identityKey', () => {
  it('prefers the smallest root commit, then a remote, else none', () => {
    expect(identityKey({ rootCommits: ['f'.repeat(40), '0'.repeat(40)], remotes: ['github.com/a/b'] })).toBe(`git-root:${'0'.repeat(40)}`);
    expect(identityKey({ rootCommits: [], remotes: ['github.com/a/b'] })).toBe('git-remote:github.com/a/b');
    expect(identityKey({ rootCommits: [], remotes: [] })).toBeNull();
  });
});
