/**
 * The string personal sync keys a project by (issue 18): issue 18's project identity key, read
 * from real repositories — one repository cloned to two places with its remote written two
 * ways is one project; a path is never an id.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { givenIdentity, identifyByRepository } from './project-key.js';
import { git } from '../memdir/test-support/test-git.js';

let tmp = '';
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-project-key-')));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

it('keys one repository by its root commit wherever it is cloned and however its remote is written', async () => {
  const laptop = path.join(tmp, 'home/ann/src/app');
  await fs.mkdir(laptop, { recursive: true });
  git(laptop, 'init', '-q');
  await fs.writeFile(path.join(laptop, 'README.md'), 'app\n');
  git(laptop, 'add', '.');
  git(laptop, 'commit', '-q', '-m', 'first');
  git(laptop, 'remote', 'add', 'origin', 'git@github.com:Ann/App.git');
  const root = git(laptop, 'rev-list', '--max-parents=0', 'HEAD');
  const desktop = path.join(tmp, 'work/checkouts/app-two');
  git(tmp, 'clone', '-q', laptop, desktop);
  git(desktop, 'remote', 'set-url', 'origin', 'https://github.com/ann/app');

  const a = await identifyByRepository(laptop);
  const b = await identifyByRepository(desktop);
  expect(a).toEqual({ id: `git-root:${root}`, source: 'repository', detail: `root commit ${root.slice(0, 12)}` });
  expect(b).toEqual(a);
});

it('falls back to the normalised remote before the first commit, and has no id from a path', async () => {
  const fresh = path.join(tmp, 'notes');
  await fs.mkdir(fresh);
  git(fresh, 'init', '-q');
  git(fresh, 'remote', 'add', 'origin', 'git@github.com:Ann/Notes.git');
  expect(await identifyByRepository(fresh)).toEqual({ id: 'git-remote:github.com/ann/notes', source: 'repository', detail: 'remote github.com/ann/notes' });

  // A remote that is a folder on this machine says nothing about another machine.
  git(fresh, 'remote', 'set-url', 'origin', path.join(tmp, 'bare.git'));
  expect(await identifyByRepository(fresh)).toBeNull();
  const plain = path.join(tmp, 'plain-folder');
  await fs.mkdir(plain);
  expect(await identifyByRepository(plain)).toBeNull();
  expect(await identifyByRepository(null)).toBeNull();
});

it('takes a name the user gives, the same on each machine, and refuses an empty or unprintable one', () => {
  expect(givenIdentity(' notes ')).toEqual({ id: 'name:notes', source: 'given', detail: 'the name you gave: notes' });
  expect(() => givenIdentity('')).toThrow(RangeError);
  expect(() => givenIdentity('a\u202Eb')).toThrow(RangeError);
});
