import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listHistory, restoreFromHistory } from '../history/history.js';
import { indexEntries, parseIndex } from '../../shared/index-format.js';
import { MemoryError } from './memory-error.js';
import {
  applyFixes,
  previewFixes,
  createMemory,
  deleteMemory,
  renameMemory,
  saveIndexText,
  suggestFileName,
  updateMemory,
  type Where,
} from './memory-service.js';
import { fixRequestOf } from '../../shared/problems.js';
import { scanMemoryDir } from './scan-dir.js';

let root: string;
let where: Where;
let team: Where;
const read = (rel: string) => fs.readFile(path.join(where.memoryDir, rel), 'utf8');
const entries = async (rel = 'MEMORY.md') => indexEntries(parseIndex(await read(rel))).map((e) => [e.file, e.title, e.hook]);

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-service-'));
  const memoryDir = path.join(root, 'memory');
  await fs.mkdir(memoryDir);
  where = { memoryDir, scope: 'private', dataDir: path.join(root, 'data') };
  team = { ...where, scope: 'team' };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const fields = { name: 'No ORM', description: 'We write SQL by hand', type: 'feedback' as const };

describe('createMemory', () => {
  it('writes the topic file and its pointer, and records it in history as manual', async () => {
    const { file, entry } = await createMemory(where, { fields, body: 'Because of the outage.\n' });
    expect(file).toBe('feedback_no_orm.md');
    expect(await read(file)).toBe(
      '---\nname: No ORM\ndescription: We write SQL by hand\nmetadata:\n  node_type: memory\n  type: feedback\n---\n\nBecause of the outage.\n',
    );
    expect(await entries()).toEqual([['feedback_no_orm.md', 'No ORM', 'We write SQL by hand']]);
    expect(entry).toMatchObject({ source: 'manual', summary: 'Create feedback_no_orm.md' });
    const scan = scanMemoryDir(where.memoryDir, { scope: 'private' });
    expect(scan.problems).toEqual([]);
  });

  it('creates team memories in memory/team, pointed at from MEMORY.md as team/x.md (the index Claude Code loads) and listed in team/MEMORY.md, but never a "user" one', async () => {
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [Mine](mine.md) — m\n');
    await createMemory(team, { fields: { name: 'CI', description: 'No Python 3.8 in CI', type: 'project' }, body: '' });
    expect(await entries()).toEqual([
      ['mine.md', 'Mine', 'm'],
      ['team/project_ci.md', 'CI', 'No Python 3.8 in CI'],
    ]);
    // The team's shared table of contents, synced to teammates, lists it too.
    expect(await entries('team/MEMORY.md')).toEqual([['project_ci.md', 'CI', 'No Python 3.8 in CI']]);
    // So it is loaded at once, not "unlisted".
    const scan = scanMemoryDir(path.join(where.memoryDir, 'team'), {
      scope: 'team',
      linkedFromParent: () => ({ loaded: ['project_ci.md'], cut: [] }),
    });
    expect(scan.problems).toEqual([]);
    await expect(createMemory(team, { fields: { name: 'Me', description: 'x', type: 'user' }, body: '' })).rejects.toMatchObject({ code: 'scope-refused' });
  });

  it('refuses names that leave the directory, hide, or clash, and never overwrites', async () => {
    for (const file of ['../x.md', 'a/b.md', 'a\\b.md', '.hidden.md', 'MEMORY.md', 'notes.txt', 'x\0.md']) {
      await expect(createMemory(where, { fields, body: '', file }), file).rejects.toBeInstanceOf(MemoryError);
    }
    await createMemory(where, { fields, body: 'first', file: 'same.md' });
    await expect(createMemory(where, { fields, body: 'second', file: 'same.md' })).rejects.toMatchObject({ code: 'exists' });
    expect(await read('same.md')).toContain('first');
  });

  it('refuses, with a sentence, names that do not survive a markdown link, a terminal or Windows (issue 15)', async () => {
    const hostile = [
      'a%41b.md',
      '50%25.md',
      'a#b.md',
      'why?.md',
      'bell\u0007.md',
      'evil\u202Egnp.md',
      'CON.md',
      'aux.md',
      'nul.md',
      'com1.md',
      'lpt9.md',
      'notes.md.',
      'notes.md ',
      ' notes.md',
    ];
    await createMemory(where, { fields, body: '', file: 'ok.md' });
    for (const file of hostile) {
      const error = await createMemory(where, { fields, body: '', file }).catch((e: unknown) => e);
      expect(error, JSON.stringify(file)).toMatchObject({ code: 'invalid-name', message: expect.stringContaining('cannot be the name of a private memory') });
      expect(error).not.toHaveProperty('issues');
      await expect(renameMemory(where, 'ok.md', file), JSON.stringify(file)).rejects.toMatchObject({ code: 'invalid-name' });
    }
    expect((await fs.readdir(where.memoryDir)).sort()).toEqual(['MEMORY.md', 'ok.md']);
  });

  it('derives readable file names, even from Chinese names', () => {
    expect(suggestFileName('project', 'Café deploy — v2!')).toBe('project_cafe_deploy_v2.md');
    expect(suggestFileName('user', '用户角色')).toMatch(/^user_[a-z0-9]+\.md$/);
  });
});

describe('updateMemory', () => {
  it('edits in place, keeps unknown frontmatter, and keeps the index line in step', async () => {
    await fs.writeFile(path.join(where.memoryDir, 'f.md'), '---\nname: Old\ndescription: old hook\ntype: feedback\nowner: alice\n---\nold\n');
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '# Index\n- [Old](f.md) — old hook\n');
    await updateMemory(where, { file: 'f.md', fields: { name: 'New', description: 'new hook', type: 'feedback' }, body: 'new\n' });
    expect(await read('f.md')).toBe('---\nname: New\ndescription: new hook\ntype: feedback\nowner: alice\n---\nnew\n');
    expect(await read('MEMORY.md')).toBe('# Index\n- [New](f.md) — new hook\n');
  });

  it('a hook Memdir cut from a long description still follows the description', async () => {
    const long = `${'detail '.repeat(40)}end`;
    await createMemory(where, { fields: { name: 'A', description: long, type: 'feedback' }, body: 'x\n', file: 'f.md' });
    expect(indexEntries(parseIndex(await read('MEMORY.md')))[0]!.hook).toMatch(/^detail detail .*\u2026$/);
    await updateMemory(where, { file: 'f.md', fields: { name: 'A', description: 'short now', type: 'feedback' }, body: 'x\n' });
    expect(await read('MEMORY.md')).toBe('- [A](f.md) — short now\n');
  });

  it('keeps a hand-written index hook that differs from the description', async () => {
    await fs.writeFile(path.join(where.memoryDir, 'f.md'), '---\nname: A\ndescription: d\ntype: feedback\n---\n');
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [A](f.md) — my own hook\n');
    await updateMemory(where, { file: 'f.md', fields: { name: 'A', description: 'changed', type: 'feedback' }, body: '' });
    expect(await read('MEMORY.md')).toBe('- [A](f.md) — my own hook\n');
  });

  it('refuses to save over a file changed on disk since the editor opened it, and hands back both', async () => {
    await createMemory(where, { fields, body: 'v1\n', file: 'f.md' });
    const base = await read('f.md');
    await fs.writeFile(path.join(where.memoryDir, 'f.md'), `${base}added by Claude Code\n`);
    const error = await updateMemory(where, { file: 'f.md', fields, body: 'mine\n', baseText: base }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'conflict' });
    expect((error as MemoryError).current).toContain('added by Claude Code');
    expect(await read('f.md')).toContain('added by Claude Code');
  });

  it('says clearly when the file vanished', async () => {
    await expect(updateMemory(where, { file: 'gone.md', fields, body: '' })).rejects.toMatchObject({ code: 'not-found' });
  });
});

describe('renameMemory and deleteMemory', () => {
  it('renames and retargets every pointer; refuses to overwrite', async () => {
    await createMemory(where, { fields, body: '', file: 'a.md' });
    await createMemory(where, { fields: { ...fields, name: 'B' }, body: '', file: 'b.md' });
    await renameMemory(where, 'a.md', 'c.md');
    expect((await entries()).map(([f]) => f)).toEqual(['c.md', 'b.md']);
    await expect(renameMemory(where, 'c.md', 'b.md')).rejects.toThrow();
    expect(await read('b.md')).toContain('name: B');
  });

  it('refuses a bad new name in words about the memory and its own scope, never about team sync keys', async () => {
    await createMemory(where, { fields, body: '', file: 'mine.md' });
    const refusal = (w: Where, from: string, to: string) =>
      renameMemory(w, from, to).then(
        () => '',
        (e: Error) => e.message,
      );
    for (const to of ['../escape.md', 'no-extension', '/abs.md', 'a%2e.md']) {
      const message = await refusal(where, 'mine.md', to);
      expect(message, to).toMatch(/^".+" cannot be the name of a private memory: .+\.$/);
      expect(message, to).not.toMatch(/\bteam\b|\bkeys?\b|sync/i);
    }
    expect(await refusal(where, 'mine.md', '../escape.md')).toContain('".." segments are not allowed');
    expect(await refusal(where, 'mine.md', 'no-extension')).toContain('the name must end in ".md"');
    await createMemory(team, { fields: { ...fields, type: 'project' }, body: '', file: 'ours.md' });
    expect(await refusal(team, 'ours.md', 'no-extension')).toMatch(/^"no-extension" cannot be the name of a team memory: /);
    expect(await read('mine.md')).toContain('name: No ORM');
  });

  it('deletes the file and its pointer, and history brings it back', async () => {
    await createMemory(where, { fields, body: 'precious\n', file: 'p.md' });
    const { entry } = await deleteMemory(where, 'p.md');
    await expect(read('p.md')).rejects.toThrow();
    expect(await entries()).toEqual([]);
    await restoreFromHistory(where.memoryDir, `${entry!.rev}~1`, { dataDir: where.dataDir! });
    expect(await read('p.md')).toContain('precious');
    expect((await entries()).map(([f]) => f)).toEqual(['p.md']);
    const sources = (await listHistory(where.memoryDir, { dataDir: where.dataDir! })).map((e) => e.source);
    expect(sources.slice(0, 3)).toEqual(['restore', 'manual', 'manual']);
  });
});

describe("a team memory's pointers in MEMORY.md (team/x.md) and team/MEMORY.md", () => {
  const teamTopic = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\nbody\n`;
  beforeEach(async () => {
    await fs.mkdir(path.join(where.memoryDir, 'team'));
    await fs.writeFile(path.join(where.memoryDir, 'team', 'ci.md'), teamTopic('CI', 'No Python 3.8'));
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [Mine](mine.md) — m\n- [CI](team/ci.md) — No Python 3.8\n');
    await fs.writeFile(path.join(where.memoryDir, 'team', 'MEMORY.md'), '- [CI](ci.md) — No Python 3.8\n');
  });

  it('follow an edit of its name and description', async () => {
    await updateMemory(team, { file: 'ci.md', fields: { name: 'CI images', description: 'No Python 3.8 in CI images', type: 'project' }, body: 'body\n' });
    expect(await entries()).toEqual([
      ['mine.md', 'Mine', 'm'],
      ['team/ci.md', 'CI images', 'No Python 3.8 in CI images'],
    ]);
    expect(await entries('team/MEMORY.md')).toEqual([['ci.md', 'CI images', 'No Python 3.8 in CI images']]);
  });

  it('follow a rename, in place, so it stays loaded', async () => {
    await renameMemory(team, 'ci.md', 'ci_images.md');
    expect(await entries()).toEqual([
      ['mine.md', 'Mine', 'm'],
      ['team/ci_images.md', 'CI', 'No Python 3.8'],
    ]);
    expect(await entries('team/MEMORY.md')).toEqual([['ci_images.md', 'CI', 'No Python 3.8']]);
  });

  it('go with a delete, and Undo brings both back', async () => {
    const { entry } = await deleteMemory(team, 'ci.md');
    expect(await entries()).toEqual([['mine.md', 'Mine', 'm']]);
    expect(await entries('team/MEMORY.md')).toEqual([]);
    await restoreFromHistory(where.memoryDir, `${entry!.rev}~1`, { dataDir: where.dataDir });
    expect(await read('MEMORY.md')).toBe('- [Mine](mine.md) — m\n- [CI](team/ci.md) — No Python 3.8\n');
    expect(await read('team/MEMORY.md')).toBe('- [CI](ci.md) — No Python 3.8\n');
  });

  it('leave a private memory of the same name alone, and write no MEMORY.md where there is none', async () => {
    await fs.writeFile(path.join(where.memoryDir, 'ci.md'), teamTopic('Private CI', 'mine'));
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [Private CI](ci.md) — mine\n- [CI](team/ci.md) — No Python 3.8\n');
    await renameMemory(team, 'ci.md', 'ci2.md');
    expect(await entries()).toEqual([
      ['ci.md', 'Private CI', 'mine'],
      ['team/ci2.md', 'CI', 'No Python 3.8'],
    ]);
    await fs.rm(path.join(where.memoryDir, 'MEMORY.md'));
    await deleteMemory(team, 'ci2.md');
    await expect(fs.access(path.join(where.memoryDir, 'MEMORY.md'))).rejects.toThrow();
  });
});

describe('applyFixes', () => {
  it('adds orphans, drops dangling and repeated pointers, and ignores fixes that no longer apply', async () => {
    await fs.writeFile(path.join(where.memoryDir, 'orphan.md'), '---\nname: Orphan\ndescription: lost memory\ntype: reference\n---\n');
    await fs.writeFile(path.join(where.memoryDir, 'kept.md'), '---\nname: Kept\ndescription: k\ntype: user\n---\n');
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [Kept](kept.md) — k\n- [Gone](gone.md) — g\n- [Kept again](kept.md) — dup\n');
    const scan = scanMemoryDir(where.memoryDir, { scope: 'private' });
    const fixes = scan.problems.map(fixRequestOf).filter((f) => f !== null);
    expect(fixes.map((f) => f.kind).sort()).toEqual(['add-to-index', 'dedupe-pointer', 'drop-pointer']);
    const { applied, entry } = await applyFixes(where, fixes);
    expect(applied).toHaveLength(3);
    expect(entry).toMatchObject({ source: 'fix' });
    expect(await entries()).toEqual([
      ['kept.md', 'Kept', 'k'],
      ['orphan.md', 'Orphan', 'lost memory'],
    ]);
    expect(scanMemoryDir(where.memoryDir, { scope: 'private' }).problems).toEqual([]);
    // The same fixes again: nothing left to do, nothing damaged.
    expect((await applyFixes(where, fixes)).applied).toEqual([]);
  });
});

describe('applyFixes: a description cut short by a YAML comment', () => {
  it('quotes the value in place (every other byte kept), in one history entry with the orphan it makes whole in the index', async () => {
    const text = '---\nname: Retro\ndescription: PRs #45-#61 introduced the AI assistant   \ntype: project # kept\n---\n\nbody\n';
    // An empty MEMORY.md: Claude Code keeps it (it builds one only when there is none), so the memories are unlisted.
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '');
    await fs.writeFile(path.join(where.memoryDir, 'retro.md'), text);
    const scan = scanMemoryDir(where.memoryDir, { scope: 'private' });
    const cut = scan.problems.find((p) => p.code === 'cut-by-comment')!;
    expect(cut).toMatchObject({ file: 'retro.md', line: 3, severity: 'warning', fix: 'quote-value' });
    const fixes = scan.problems.map(fixRequestOf).filter((f) => f !== null);
    expect(fixes.map((f) => f.kind).sort()).toEqual(['add-to-index', 'quote-value']);
    // The preview already reads the whole description for the pointer it would add.
    const { plan } = await previewFixes(where, fixes);
    expect(plan.text).toContain('— PRs #45-#61 introduced the AI assistant');
    const { applied, entry } = await applyFixes(where, fixes);
    expect(applied).toHaveLength(2);
    expect(entry).toMatchObject({ source: 'fix' });
    expect(await read('retro.md')).toBe('---\nname: Retro\ndescription: "PRs #45-#61 introduced the AI assistant"\ntype: project # kept\n---\n\nbody\n');
    expect(await entries()).toEqual([['retro.md', 'Retro', 'PRs #45-#61 introduced the AI assistant']]);
    expect(scanMemoryDir(where.memoryDir, { scope: 'private' }).problems).toEqual([]);
    // Undo puts the file back as it was.
    await restoreFromHistory(where.memoryDir, `${entry!.rev}~1`, { dataDir: where.dataDir });
    expect(await read('retro.md')).toBe(text);
    // Asked again once fixed: nothing to do, nothing damaged.
    await applyFixes(where, fixes);
    expect((await applyFixes(where, [{ kind: 'quote-value', file: 'retro.md' }])).applied).toEqual([]);
  });
});

describe('applyFixes at the cut (R-INDEX)', () => {
  // What a dream's Prune leaves: 195 pointers (under the cut, with room for a few) and the
  // memories it left out to stay inside its limit, now orphans.
  const setUp = async (listed: number, orphans: number) => {
    const pointer = (i: number) => `- [Source ${i}](source_${i}.md) — feed ${i}: schedule and owner`;
    for (let i = 0; i < listed + orphans; i++)
      await fs.writeFile(
        path.join(where.memoryDir, `source_${i}.md`),
        `---\nname: Source ${i}\ndescription: feed ${i}: schedule and owner\ntype: project\n---\n`,
      );
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), `${Array.from({ length: listed }, (_, i) => pointer(i)).join('\n')}\n`);
    return scanMemoryDir(where.memoryDir, { scope: 'private' })
      .problems.map(fixRequestOf)
      .filter((f) => f !== null);
  };

  it('adds orphans only while their pointers reach the agent, and holds back the rest', async () => {
    const fixes = await setUp(195, 12);
    expect(fixes).toHaveLength(12);
    const { applied, heldBack, impact } = await applyFixes(where, fixes);
    expect(applied).toHaveLength(5);
    expect(heldBack).toHaveLength(7);
    expect(impact.after).toMatchObject({ lines: 200, truncated: false, cut: 0 });
    const scan = scanMemoryDir(where.memoryDir, { scope: 'private' });
    expect(scan.index.cut).toEqual([]);
    expect(scan.problems.filter((p) => p.code === 'over-limit')).toEqual([]);
    expect(scan.problems.filter((p) => p.code === 'orphan')).toHaveLength(7);
    // History says what was fixed, not what was asked.
    expect((await listHistory(where.memoryDir, { dataDir: where.dataDir! }))[0]!.summary).toBe('Fix 5 index problems');
  });

  it('adds them below the cut when asked to, and says which pointers it leaves past the cut', async () => {
    const fixes = await setUp(195, 12);
    const { applied, heldBack, impact } = await applyFixes(where, fixes, { pastCut: true });
    expect(applied).toHaveLength(12);
    expect(heldBack).toEqual([]);
    expect(impact.after).toMatchObject({ lines: 207, truncated: true, cut: 7, firstCutLine: 201 });
  });

  it('drops dangling pointers first, so the room they free takes orphans', async () => {
    const fixes = await setUp(200, 3);
    const text = await read('MEMORY.md');
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), text.replace('source_0.md', 'gone_0.md').replace('source_1.md', 'gone_1.md'));
    const all = scanMemoryDir(where.memoryDir, { scope: 'private' })
      .problems.map(fixRequestOf)
      .filter((f) => f !== null);
    expect(all.length).toBe(fixes.length + 4);
    const { applied, heldBack } = await applyFixes(where, all);
    expect(applied.filter((f) => f.kind === 'drop-pointer')).toHaveLength(2);
    // 198 pointers left: two of the five orphans (source_0, source_1 and the three new ones) fit.
    expect(applied.filter((f) => f.kind === 'add-to-index')).toHaveLength(2);
    expect(heldBack).toHaveLength(3);
    expect(scanMemoryDir(where.memoryDir, { scope: 'private' }).index.cut).toEqual([]);
  });

  it('previews without writing: the plan together and each fix alone', async () => {
    const fixes = await setUp(199, 3);
    const before = await read('MEMORY.md');
    const { plan, each } = await previewFixes(where, fixes);
    expect(await read('MEMORY.md')).toBe(before);
    expect(plan.applied).toHaveLength(1);
    expect(plan.heldBack).toHaveLength(2);
    expect(each.map((e) => e.alone)).toEqual(['loaded', 'loaded', 'loaded']);
    expect((await listHistory(where.memoryDir, { dataDir: where.dataDir! })).length).toBe(0);
  });
});

describe('lint --fix on files Claude Code or an editor named with %, # or spaces', () => {
  it('adds one pointer per file, whose text decodes back to the file name, and never a second one', async () => {
    const names = ['a%41b.md', 'x#y.md', 'notes (old).md', '50%.md', 'q?.md'];
    // An empty MEMORY.md: Claude Code keeps it (it builds one only when there is none), so the memories are unlisted.
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '');
    for (const name of names) await fs.writeFile(path.join(where.memoryDir, name), `---\nname: ${name}\ndescription: d\ntype: reference\n---\n`);
    for (let run = 0; run < 3; run++) {
      const fixes = scanMemoryDir(where.memoryDir, { scope: 'private' })
        .problems.map(fixRequestOf)
        .filter((f) => f !== null);
      const { applied } = await applyFixes(where, fixes);
      expect(applied.length, `run ${run}`).toBe(run === 0 ? names.length : 0);
    }
    expect((await entries()).map(([f]) => f).sort()).toEqual([...names].sort());
    expect(
      scanMemoryDir(where.memoryDir, { scope: 'private' }).problems.filter(
        (p) => p.code === 'orphan' || p.code === 'dangling-link' || p.code === 'duplicate-pointer',
      ),
    ).toEqual([]);
  });
});

describe('saveIndexText', () => {
  it('writes MEMORY.md, refusing when it changed since it was read', async () => {
    await saveIndexText(where, '- [A](a.md) — a\n');
    await expect(saveIndexText(where, 'mine', 'stale base')).rejects.toMatchObject({ code: 'conflict' });
    expect(await read('MEMORY.md')).toBe('- [A](a.md) — a\n');
  });

  it('merges an edit onto a change Claude Code made on disk since, when the lines do not overlap (review x1 F3)', async () => {
    const base = '# Index\n- [A](a.md) — a\n';
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), base);
    // Claude Code appends a pointer while the user adds a section at the top.
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), `${base}- [B](b.md) — b\n`);
    const saved = await saveIndexText(where, '# Index\n## My notes\nRun make gen first.\n- [A](a.md) — a\n', base);
    expect(saved.merged).toBe(true);
    expect(await read('MEMORY.md')).toBe('# Index\n## My notes\nRun make gen first.\n- [A](a.md) — a\n- [B](b.md) — b\n');
  });

  it('refuses a save whose lines Claude Code changed too, with what is on disk now, writing nothing', async () => {
    const base = '# Index\n- [A](a.md) — a\n';
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), base.replace('— a', '— alpha, from Claude Code'));
    const error = await saveIndexText(where, base.replace('— a', '— alpha, mine'), base).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'conflict', current: base.replace('— a', '— alpha, from Claude Code') });
    expect((error as Error).message).toContain('"- [A](a.md) — alpha, from Claude Code"');
    expect(await read('MEMORY.md')).toBe(base.replace('— a', '— alpha, from Claude Code'));
  });

  it("keeps the file's line endings and BOM: an editor's \\n lines are written as the file's CRLF", async () => {
    const base = '\uFEFF# Index\r\n- [A](a.md) — a\r\n';
    await saveIndexText(where, base);
    await saveIndexText(where, '\uFEFF# Index\n- [A](a.md) — a\nNote added\n', base);
    expect(await read('MEMORY.md')).toBe('\uFEFF# Index\r\n- [A](a.md) — a\r\nNote added\r\n');
    // An LF file stays LF.
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [A](a.md) — a\n');
    await saveIndexText(where, '- [A](a.md) — a\r\n- [B](b.md) — b\n');
    expect(await read('MEMORY.md')).toBe('- [A](a.md) — a\n- [B](b.md) — b\n');
  });
});

describe('a secret typed into a memory (R-SYNC-SECURITY: Claude Code sends every memory to the model)', () => {
  const token = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
  const refusal = async (save: Promise<unknown>) => {
    const error = await save.then(
      () => null,
      (e: unknown) => e as Error & { code?: string; secrets?: { fingerprint: string; match: string; line: number }[]; hint?: string },
    );
    expect(error, 'the save went through').not.toBeNull();
    return error!;
  };

  it('refuses a new memory holding a token, names it masked with its fingerprint, and writes nothing', async () => {
    const error = await refusal(createMemory(where, { fields, body: `Deploy with ${token}\n` }));
    expect(error.code).toBe('secret-found');
    expect(error.message).toMatch(
      /^Nothing was saved: feedback_no_orm\.md would hold a GitHub token \(ghp_\*+\) at line \d+ of its body \(line \d+ of the file\) \[fingerprint [0-9a-f]{16}\]/,
    );
    expect(error.message).not.toContain(token);
    expect(error.message).not.toContain(token.slice(6));
    expect(error.hint).toMatch(/save anyway on purpose/);
    await expect(fs.access(path.join(where.memoryDir, 'feedback_no_orm.md'))).rejects.toThrow();
    await expect(fs.access(path.join(where.memoryDir, 'MEMORY.md'))).rejects.toThrow();
    // On purpose: allowed by its fingerprint.
    await createMemory(where, { fields, body: `Deploy with ${token}\n`, allowSecrets: error.secrets!.map((s) => s.fingerprint) });
    expect(await read('feedback_no_orm.md')).toContain(token);
  });

  it('refuses an edit that adds a token; a token already in the file does not block an unrelated edit', async () => {
    await createMemory(where, { fields, body: 'Because of the outage.\n' });
    const base = await read('feedback_no_orm.md');
    const error = await refusal(updateMemory(where, { file: 'feedback_no_orm.md', fields, body: `Because of the outage.\ntoken: ${token}\n`, baseText: base }));
    expect(error.code).toBe('secret-found');
    expect(await read('feedback_no_orm.md')).toBe(base);
    const fingerprint = error.secrets![0]!.fingerprint;
    await updateMemory(where, {
      file: 'feedback_no_orm.md',
      fields,
      body: `Because of the outage.\ntoken: ${token}\n`,
      baseText: base,
      allowSecrets: [fingerprint],
    });
    // The token is in the file now: editing the description (the token moves a line down) is not refused.
    const withToken = await read('feedback_no_orm.md');
    await updateMemory(where, {
      file: 'feedback_no_orm.md',
      fields: { ...fields, description: 'SQL by hand' },
      body: `Why:\nBecause of the outage.\ntoken: ${token}\n`,
      baseText: withToken,
    });
    expect(await read('feedback_no_orm.md')).toContain('description: SQL by hand');
  });

  it('refuses MEMORY.md saved with a token in it', async () => {
    const error = await refusal(saveIndexText(where, `- [Deploy](deploy.md) — use ${token}\n`, ''));
    expect(error.code).toBe('secret-found');
    expect(error.message).toMatch(/MEMORY\.md would hold a GitHub token/);
    await expect(fs.access(path.join(where.memoryDir, 'MEMORY.md'))).rejects.toThrow();
  });

  it("refuses a new memory whose file name holds a token (it becomes MEMORY.md's pointer), masked, until allowed", async () => {
    const named = `reference_${token}.md`;
    const error = await refusal(createMemory(where, { fields, body: 'The CI bot.\n', file: named }));
    expect(error.code).toBe('secret-found');
    expect(error.message).toMatch(
      /^Nothing was saved: reference_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name \[fingerprint [0-9a-f]{16}\], and its name goes into MEMORY\.md/,
    );
    expect(JSON.stringify({ message: error.message, hint: error.hint, secrets: error.secrets })).not.toContain(token.slice(6));
    expect(error.secrets).toEqual([expect.objectContaining({ title: 'GitHub token', line: 0, fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) })]);
    await expect(fs.access(path.join(where.memoryDir, named))).rejects.toThrow();
    await expect(fs.access(path.join(where.memoryDir, 'MEMORY.md'))).rejects.toThrow();
    // In the team scope the label is team/…, masked too.
    const inTeam = await refusal(createMemory(team, { fields: { ...fields, type: 'project' }, body: 'x\n', file: named }));
    expect(inTeam.message).toMatch(/^Nothing was saved: team\/reference_ghp_\*+\.md would hold/);
    // On purpose: allowed by its fingerprint.
    await createMemory(where, { fields, body: 'The CI bot.\n', file: named, allowSecrets: error.secrets!.map((s) => s.fingerprint) });
    expect(await entries()).toEqual([[named, 'No ORM', 'We write SQL by hand']]);
  });

  it('refuses an invalid name holding a token with the token masked', async () => {
    const created = await refusal(createMemory(where, { fields, body: 'x\n', file: `${token}/x.md` }));
    expect(created.code).toBe('invalid-name');
    expect(created.message).toMatch(/^"ghp_\*+\/x\.md" is not a valid memory file name/);
    expect(created.message).not.toContain(token.slice(6));
    await createMemory(where, { fields, body: 'x\n', file: 'reference_bot.md' });
    const renamed = await refusal(renameMemory(where, 'reference_bot.md', `reference_${token}`));
    expect(renamed.code).toBe('invalid-name');
    expect(renamed.message).toMatch(/^"reference_ghp_\*+" cannot be the name of a private memory: .* must end in "\.md"/);
    expect(renamed.message).not.toContain(token.slice(6));
    // A long name quoted cut at 80 characters, the token across the cut: no part of it printed.
    const long = await refusal(createMemory(where, { fields, body: 'x\n', file: `${'n'.repeat(60)}_${token}/x.md` }));
    expect(long.code).toBe('invalid-name');
    expect(long.message).not.toContain(token.slice(4, 12));
  });

  it('says a name holding a token is refused for the token before it says the name exists', async () => {
    await fs.writeFile(path.join(where.memoryDir, `reference_${token}.md`), '---\nname: Bot\ndescription: d\ntype: reference\n---\nx\n');
    const error = await refusal(createMemory(where, { fields, body: 'x\n', file: `reference_${token}.md` }));
    expect(error.code).toBe('secret-found');
    expect(error.message).not.toContain(token.slice(6));
  });

  it('refuses a rename to a name holding a token, masked, until allowed; nothing moves', async () => {
    await createMemory(where, { fields, body: 'The CI bot.\n', file: 'reference_bot.md' });
    const error = await refusal(renameMemory(where, 'reference_bot.md', `reference_${token}.md`));
    expect(error.code).toBe('secret-found');
    expect(error.message).toMatch(/^Nothing was saved: reference_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name \[fingerprint [0-9a-f]{16}\]/);
    expect(error.message).not.toContain(token.slice(6));
    expect(await read('reference_bot.md')).toContain('The CI bot.');
    expect(await entries()).toEqual([['reference_bot.md', 'No ORM', 'We write SQL by hand']]);
    // A folder holding it is refused as well (every part of the path is in the pointer).
    expect((await refusal(renameMemory(where, 'reference_bot.md', `${token}/bot.md`))).code).toBe('secret-found');
    await renameMemory(
      where,
      'reference_bot.md',
      `reference_${token}.md`,
      error.secrets!.map((s) => s.fingerprint),
    );
    expect(await entries()).toEqual([[`reference_${token}.md`, 'No ORM', 'We write SQL by hand']]);
    // Renamed again, keeping the token its name held already: nothing new reaches the model, so nothing to ask.
    await renameMemory(where, `reference_${token}.md`, `reference_${token}_old.md`);
    expect(await entries()).toEqual([[`reference_${token}_old.md`, 'No ORM', 'We write SQL by hand']]);
    // Another token in the new name is new, though.
    const other = `ghp_${'Wd3Kf8Lm1Qp6Rs9Tv2Xy5Zb7Nc4Hg0Ja3Eu8I'.slice(0, 36)}`;
    expect((await refusal(renameMemory(where, `reference_${token}_old.md`, `reference_${token}_${other}.md`))).message).toMatch(
      /^Nothing was saved: reference_ghp_\*+_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name/,
    );
  });

  it('names several secrets in one sentence', async () => {
    const other = `ghp_${'Lm3Pk5Hj7Qs9Df0Ga2Xc4VZq8Rv2Tx6Wb4Ny1'.slice(0, 36)}`;
    const error = await refusal(createMemory(where, { fields, body: `${token}\n${other}\n` }));
    expect(error.secrets).toHaveLength(2);
    expect(error.message).toMatch(/would hold 2 secrets: a GitHub token .* and a GitHub token /);
  });
});

describe('names that differ only by Unicode form (NFD "cafe\\u0301.md" beside NFC "caf\\u00e9.md")', () => {
  const NFD = 'cafe\u0301.md';
  const NFC = 'caf\u00e9.md';
  const topicText = (description: string) => `---\nname: Café\ndescription: ${description}\ntype: reference\n---\n\nAbout ${description}.\n`;
  const files = async () => (await fs.readdir(where.memoryDir)).filter((f) => f !== 'MEMORY.md').sort();
  const twins = async (dir = where.memoryDir) => {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, NFD), topicText('nfd cafe'));
    await fs.writeFile(path.join(dir, NFC), topicText('nfc cafe'));
  };

  it('an existing file is edited and deleted by its exact name, never its twin', async () => {
    await twins();
    await updateMemory(where, { file: NFD, fields: { name: 'Café', description: 'nfd edited', type: 'reference' }, body: 'Edited.\n' });
    expect(await read(NFD)).toContain('description: nfd edited');
    expect(await read(NFC)).toBe(topicText('nfc cafe'));
    await deleteMemory(where, NFD);
    expect(await files()).toEqual([NFC]);
    expect(await read(NFC)).toBe(topicText('nfc cafe'));
  });

  it('an NFD-only team memory is edited under its own name', async () => {
    await fs.mkdir(path.join(where.memoryDir, 'team'), { recursive: true });
    await fs.writeFile(path.join(where.memoryDir, 'team', NFD), topicText('team nfd'));
    await updateMemory(team, { file: NFD, fields: { name: 'Café', description: 'team edited', type: 'reference' }, body: '' });
    expect((await fs.readdir(path.join(where.memoryDir, 'team'))).filter((f) => f !== 'MEMORY.md')).toEqual([NFD]);
    expect(await read(`team/${NFD}`)).toContain('description: team edited');
  });

  it('renames NFD to NFC when no twin holds the name, and the pointer follows; with a twin it says the name exists', async () => {
    await fs.writeFile(path.join(where.memoryDir, NFD), topicText('nfd cafe'));
    await saveIndexText(where, `- [Café](${NFD}) — nfd cafe\n`);
    const { file, entry } = await renameMemory(where, NFD, NFC);
    expect(file).toBe(NFC);
    expect(entry).not.toBeNull();
    expect(await files()).toEqual([NFC]);
    expect(await read(NFC)).toBe(topicText('nfd cafe'));
    expect((await entries()).map(([f]) => f)).toEqual([NFC]);

    await fs.writeFile(path.join(where.memoryDir, NFD), topicText('nfd again'));
    await expect(renameMemory(where, NFD, NFC)).rejects.toMatchObject({ code: 'exists' });
    expect(await read(NFD)).toBe(topicText('nfd again'));
    expect(await read(NFC)).toBe(topicText('nfd cafe'));
  });

  it('a new name is written in NFC, and one whose twin in another form exists is refused as existing', async () => {
    const typedNfd = await createMemory(where, { fields, body: '', file: 'cre\u0300me.md' });
    expect(typedNfd.file).toBe('cr\u00e8me.md');
    expect(await files()).toEqual(['cr\u00e8me.md']);

    await fs.writeFile(path.join(where.memoryDir, NFD), topicText('nfd cafe'));
    const error = await createMemory(where, { fields, body: '', file: NFC }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'exists', message: expect.stringContaining('already exists') });
    await createMemory(where, { fields, body: '', file: 'other.md' });
    await expect(renameMemory(where, 'other.md', NFC)).rejects.toMatchObject({ code: 'exists' });
    expect(await files()).toEqual([NFD, 'cr\u00e8me.md', 'other.md'].sort());
    expect(await read(NFD)).toBe(topicText('nfd cafe'));
  });

  it('lint --fix gives each twin a pointer with its own description', async () => {
    // An empty MEMORY.md: Claude Code keeps it (it builds one only when there is none), so the memories are unlisted.
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '');
    await twins();
    const fixes = scanMemoryDir(where.memoryDir, { scope: 'private' })
      .problems.map(fixRequestOf)
      .filter((f) => f !== null);
    await applyFixes(where, fixes);
    expect((await entries()).map(([f, , hook]) => [f, hook]).sort()).toEqual(
      [
        [NFD, 'nfd cafe'],
        [NFC, 'nfc cafe'],
      ].sort(),
    );
  });
});

describe('a pointer whose link holds a raw space, `[My notes](my notes.md)` (review x1 F9)', () => {
  // Claude Code loads MEMORY.md as text: its model reads `my notes.md` from the line (see claude-code-interop.test.ts).
  const topic = (name: string) => `---\nname: ${name}\ndescription: notes\ntype: feedback\n---\n\nbody\n`;

  it('points at the file: no dangling link, no orphan, and applying every fix adds no second pointer', async () => {
    await fs.writeFile(path.join(where.memoryDir, 'my notes.md'), topic('My notes'));
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [My notes](my notes.md) — notes\n');
    const scan = scanMemoryDir(where.memoryDir, { scope: 'private' });
    expect(scan.problems.map((p) => p.message)).toEqual([]);
    expect(await entries()).toEqual([['my notes.md', 'My notes', 'notes']]);
  });

  it('a rename retargets it (written as <…>), in any script', async () => {
    await fs.writeFile(path.join(where.memoryDir, '我的 笔记.md'), topic('我的笔记'));
    await fs.writeFile(path.join(where.memoryDir, 'MEMORY.md'), '- [我的笔记](我的 笔记.md) — 中文\n- [B](b.md) — beta\n');
    await renameMemory(where, '我的 笔记.md', '新 名字.md');
    expect(await read('MEMORY.md')).toBe('- [我的笔记](<新 名字.md>) — 中文\n- [B](b.md) — beta\n');
  });
});
