// An export checks everything it packs for secrets — the files and every revision of the history — and writes nothing when it finds one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../cli/command.js';
import { exportCommand } from '../../cli/commands/relink.js';
import { listHistory, recordExternalChanges, recordSnapshot, transact } from '../history/index.js';
import { openShadowRepo } from '../history/shadow-repo.js';
import { writeFileAtomic } from '../core/safe-fs.js';
import { exportProject } from './index.js';
import { addMemories, addSession, git, makeRepo, topic } from './test-support/moved-project.js';

// Built here so no whole token sits in the repository.
const TOKEN = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Ab9Cd0Ef2Gh4'.slice(0, 36)}`;

let tmp: string;
let home: string;
let dataDir: string;
let dir: string;
let memoryDir: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-export-secrets-')));
  home = path.join(tmp, 'home');
  dataDir = path.join(tmp, 'data');
  dir = path.join(tmp, 'shop');
  await makeRepo(dir);
  await addSession(home, dir);
  memoryDir = await addMemories(home, dir, {
    'MEMORY.md': '- [Language](user_language.md) — reply in English\n',
    'user_language.md': topic('Language', 'user', 'Reply in English.'),
  });
  await recordExternalChanges(memoryDir, { dataDir });
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** Save `text` into user_language.md and record it, as a save in the app does. */
async function save(text: string): Promise<string> {
  await fs.writeFile(path.join(memoryDir, 'user_language.md'), text);
  return (await recordExternalChanges(memoryDir, { dataDir }))!.rev;
}

/** Everything in `folder`: an export that refuses leaves it as it was (no archive, no temp file). */
const listing = async (folder: string) => (await fs.readdir(folder)).sort();

function tarNames(file: string): string[] {
  return execFileSync('tar', ['tf', file], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l && !l.endsWith('/'))
    .sort();
}

async function runExport(args: string[], values: Record<string, string | boolean | string[]> = {}) {
  let out = '';
  const io: CliIo = { out: (t) => (out += t), err: () => undefined, env: { MEMDIR_DATA_DIR: dataDir }, cwd: tmp };
  const code = await exportCommand.run({ positionals: args, values: { home, ...values }, io });
  return { code, out };
}

describe('export refuses to pack a secret (R-SYNC-SECURITY)', () => {
  it('finds a token that only the history still holds, names the file, the revision and its date, and writes nothing', async () => {
    const withToken = await save(topic('Language', 'user', `Reply in English.\nDeploy with ${TOKEN}`));
    await save(topic('Language', 'user', 'Reply in English.'));
    const before = await listing(tmp);
    const file = path.join(tmp, 'shop.tar');
    const outcome = await exportProject({ home, dataDir }, dir, file);
    expect(outcome.exported).toBe(false);
    if (outcome.exported) return;
    expect(outcome.findings).toEqual([
      expect.objectContaining({
        in: 'history',
        where: 'content',
        file: 'memory/user_language.md',
        rev: withToken,
        line: 8,
        title: 'GitHub token',
        stillInFile: false,
      }),
    ]);
    const [finding] = outcome.findings;
    const saved = (await listHistory(memoryDir, { dataDir })).find((e) => e.rev === withToken)!;
    expect(finding!.time).toBe(saved.time);
    expect(finding!.match).toMatch(/^ghp_\w*\*+$/);
    expect(finding!.message).toContain(`memory/user_language.md as revision ${withToken.slice(0, 10)} of`);
    expect(finding!.message).toContain('no longer holds it');
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
    expect(await listing(tmp)).toEqual(before);
  });

  it('exports the current files only with withoutHistory (still checked), and everything once the finding is allowed by its fingerprint', async () => {
    await save(topic('Language', 'user', `Deploy with ${TOKEN}`));
    await save(topic('Language', 'user', 'Reply in English.'));
    const refused = await exportProject({ home, dataDir }, dir, path.join(tmp, 'a.tar'));
    if (refused.exported) throw new Error('the export should have been refused');

    const bare = path.join(tmp, 'bare.tar');
    expect(await exportProject({ home, dataDir }, dir, bare, { withoutHistory: true })).toMatchObject({ exported: true, history: false, files: 2 });
    expect(tarNames(bare)).toEqual(['memdir-export/manifest.json', 'memdir-export/memory/MEMORY.md', 'memdir-export/memory/user_language.md']);

    const all = path.join(tmp, 'all.tar');
    expect(await exportProject({ home, dataDir }, dir, all, { allow: [refused.findings[0]!.fingerprint] })).toMatchObject({ exported: true, history: true });
    expect(tarNames(all)).toContain('memdir-export/history/memory.bundle');
  });

  it('refuses a secret in a current file even without the history, and one in a file name the history kept, masked', async () => {
    await fs.writeFile(path.join(memoryDir, `reference_${TOKEN}.md`), topic('Deploy', 'reference', 'deploy'));
    await recordExternalChanges(memoryDir, { dataDir });
    await fs.rm(path.join(memoryDir, `reference_${TOKEN}.md`));
    await fs.mkdir(path.join(memoryDir, 'team'));
    await fs.writeFile(path.join(memoryDir, 'team', 'ci.md'), topic('CI', 'project', `token: ${TOKEN}`));
    const file = path.join(tmp, 'shop.tar');
    const outcome = await exportProject({ home, dataDir }, dir, file, { withoutHistory: true });
    if (outcome.exported) throw new Error('the export should have been refused');
    expect(outcome.findings).toEqual([expect.objectContaining({ in: 'file', where: 'content', file: 'memory/team/ci.md', line: 7, rev: null, time: null })]);
    expect(outcome.findings[0]!.message).toMatch(/^memory\/team\/ci\.md holds a GitHub token \(ghp_\w*\*+\) at line 7/);

    const withHistory = await exportProject({ home, dataDir }, dir, file);
    if (withHistory.exported) throw new Error('the export should have been refused');
    const inName = withHistory.findings.find((f) => f.where === 'name')!;
    expect(inName).toMatchObject({ in: 'history', stillInFile: false });
    expect(inName.file).toMatch(/^memory\/reference_ghp_\w*\*+\.md$/);
    expect(JSON.stringify(withHistory)).not.toContain(TOKEN);
    await expect(fs.access(file)).rejects.toThrow();
  });

  it("finds a token held only by the other side of a merge (the team's version a three-way merge kept as its second parent)", async () => {
    const { entry } = await transact(
      memoryDir,
      {
        dataDir,
        source: 'sync',
        summary: 'Merged the team version of user_language.md',
        theirs: () => [{ path: 'user_language.md', content: topic('Language', 'user', `Reply in English.\nci: ${TOKEN}`), from: 'server' }],
      },
      () => writeFileAtomic(memoryDir, 'user_language.md', topic('Language', 'user', 'Reply in English, always.')),
    );
    const outcome = await exportProject({ home, dataDir }, dir, path.join(tmp, 'shop.tar'));
    if (outcome.exported) throw new Error('the export should have been refused');
    expect(outcome.findings).toEqual([expect.objectContaining({ in: 'history', file: 'memory/user_language.md', line: 8, stillInFile: false })]);
    // Held by the merge's second parent, not by the merge itself.
    expect(outcome.findings[0]!.rev).not.toBe(entry!.rev);
    const repo = (await openShadowRepo(memoryDir, dataDir))!;
    expect(git(tmp, '--git-dir', repo.gitDir, 'rev-parse', `${entry!.rev}^2`)).toBe(outcome.findings[0]!.rev);
  });

  it("finds a token in a history entry's message", async () => {
    await fs.writeFile(path.join(memoryDir, 'notes.md'), topic('Notes', 'project', 'notes'));
    const entry = (await recordSnapshot(memoryDir, { dataDir, source: 'app', summary: 'Added notes', body: `pasted ${TOKEN}` }))!;
    const outcome = await exportProject({ home, dataDir }, dir, path.join(tmp, 'shop.tar'));
    if (outcome.exported) throw new Error('the export should have been refused');
    expect(outcome.findings).toEqual([expect.objectContaining({ in: 'history', where: 'message', file: null, rev: entry.rev })]);
  });

  it('memdir export: one sentence per finding, how to go on, exit 1 and no archive; --without-history and --allow go on', async () => {
    const withToken = await save(topic('Language', 'user', `Deploy with ${TOKEN}`));
    await save(topic('Language', 'user', 'Reply in English.'));
    const refused = await runExport([dir, 'shop.tar']);
    expect(refused.code).toBe(1);
    expect(refused.out).not.toContain(TOKEN);
    expect(refused.out).toContain(`memory/user_language.md as revision ${withToken.slice(0, 10)} of `);
    expect(refused.out).toMatch(/Nothing was written/);
    expect(refused.out).toMatch(/--without-history/);
    expect(refused.out).toMatch(/--allow <fingerprint>/);
    await expect(fs.access(path.join(tmp, 'shop.tar'))).rejects.toThrow();

    const json = await runExport([dir, 'shop.tar'], { json: true });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out);
    expect(report).toMatchObject({
      exported: false,
      file: path.join(tmp, 'shop.tar'),
      findings: [{ in: 'history', rev: withToken, file: 'memory/user_language.md' }],
    });

    const bare = await runExport([dir, 'bare.tar'], { 'without-history': true });
    expect(bare).toEqual({ code: 0, out: `Exported 2 files of ${dir} without its history to ${path.join(tmp, 'bare.tar')}.\n` });
    const allowed = await runExport([dir, 'all.tar'], { allow: [report.findings[0].fingerprint] });
    expect(allowed.code).toBe(0);
    expect(allowed.out).toMatch(/with its history/);
    // What was allowed is what leaves: the token is in the packed history.
    const clone = path.join(tmp, 'clone');
    const x = path.join(tmp, 'x');
    await fs.mkdir(x);
    execFileSync('tar', ['xf', path.join(tmp, 'all.tar'), '-C', x]);
    git(tmp, 'clone', '-q', path.join(x, 'memdir-export/history/memory.bundle'), clone);
    expect(git(clone, 'log', '-p', '--format=%H')).toContain(TOKEN);

    // A token in a file now is in its history too: one secret, named in each place (its earlier one in user_language.md too), and what to do about each.
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), `- [Language](user_language.md) — ${TOKEN}\n`);
    const both = await runExport([dir, 'both.tar']);
    expect(both.code).toBe(1);
    expect(both.out).toContain('memory/MEMORY.md holds a GitHub token (ghp_');
    expect(both.out).toMatch(/memory\/MEMORY\.md as revision \w{10} of .*; the file still holds it/);
    expect(both.out).toMatch(
      /Nothing was written: 1 secret would leave with the archive \(found in 3 places\)\. Remove or redact the secret in the current files/,
    );
    expect(both.out).not.toContain(TOKEN);
  });
});
