/**
 * Child process for the remembered-identities test: opens the store of `dataDir`, prints
 * "ready", waits for a line on stdin (so every worker has opened before any saves), then
 * remembers `projectDir` as a repository with `remote` and saves.
 */
import { once } from 'node:events';
import { RememberedIdentities } from '../project-identity.js';

const [dataDir = '', projectDir = '', remote = ''] = process.argv.slice(2);
const store = await RememberedIdentities.open(dataDir);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
store.remember(projectDir, {
  source: 'repository',
  remotes: [remote],
  rootCommits: [],
  paths: [projectDir],
  gitDir: null,
  readAt: new Date().toISOString(),
  note: null,
});
await store.save();
process.stdout.write('saved\n');
