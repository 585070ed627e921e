import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DreamFixture, createDreamFixture, topic } from '../../main/dream/test-support/dream-fixture.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../main/llm/test-support/fake-anthropic.js';
import { CREDENTIAL_NAMES, FileCredentialStore } from '../../main/settings/credentials.js';
import { runCli } from '../main.js';
import { sanitizeDirName } from '../../shared/sanitize.js';

let fx: DreamFixture;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  fx = await createDreamFixture('memdir-cli-dream-');
  const dup = topic({ name: 'No ORM', description: 'We write SQL by hand', type: 'feedback' }, 'The ORM was removed after the outage.');
  await fx.write('feedback_sql.md', dup);
  await fx.write('feedback_sql_2.md', dup);
  await fx.write('project_x.md', topic({ name: 'X', description: 'Launch', type: 'project' }, '昨天决定下周五上线。'), '2026-03-06T12:00:00Z');
  await fx.write('user_me.md', topic({ name: 'Me', description: 'Backend', type: 'user' }, 'Go.'));
  await fx.write('reference_y.md', topic({ name: 'Y', description: 'Board', type: 'reference' }, 'https://grafana.example/y'));
  await fs.mkdir(fx.dataDir, { recursive: true });
  env = { MEMDIR_DATA_DIR: fx.dataDir, CLAUDE_CONFIG_DIR: fx.home, PATH: path.join(fx.root, 'no-claude-here') };
});
afterEach(async () => {
  await fx.cleanup();
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; json: () => Record<string, unknown> }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: fx.root });
  return { code, out, err, json: () => JSON.parse(out) as Record<string, unknown> };
}

describe('memdir dream', () => {
  it('a memory or MEMORY.md it could not read is named, left as it is, never "nothing to change"; exit 1', async () => {
    // Nothing else to change: no duplicate, no relative date.
    await fs.rm(path.join(fx.memoryDir, 'feedback_sql_2.md'));
    await fs.rm(path.join(fx.memoryDir, 'project_x.md'));
    await fs.mkdir(path.join(fx.memoryDir, 'MEMORY.md', 'inside'), { recursive: true });
    await fs.mkdir(path.join(fx.memoryDir, 'project_dir.md'));
    const text = await cli('dream', '--project', fx.dir, '--force', '--offline');
    expect(text.out).not.toContain('nothing to change');
    expect(text.out).toContain('nothing changed: Memdir could not read MEMORY.md or project_dir.md and left them as they are.');
    expect(text.out).toContain('MEMORY.md could not be read (it is a folder, not a file): the dream left it as it is');
    expect(text.out).not.toContain(fx.memoryDir);
    expect(text.code).toBe(1);
    const json = await cli('dream', '--project', fx.dir, '--force', '--offline', '--json');
    expect(json.code).toBe(1);
    expect((json.json().flags as { kind: string; files: string[] }[]).filter((f) => f.kind === 'unreadable').map((f) => f.files)).toEqual([
      ['MEMORY.md'],
      ['project_dir.md'],
    ]);
    // Never written over: both folders are there as they were, MEMORY.md not made a file.
    expect((await fs.stat(path.join(fx.memoryDir, 'MEMORY.md'))).isDirectory()).toBe(true);
    expect(await fs.readdir(path.join(fx.memoryDir, 'MEMORY.md'))).toEqual(['inside']);
    expect((await fs.stat(path.join(fx.memoryDir, 'project_dir.md'))).isDirectory()).toBe(true);
  });

  it("a memory that is a symbolic link is the user's choice, not a failure: a note, left as it is, exit 0 (review s43)", async () => {
    await fs.rm(path.join(fx.memoryDir, 'feedback_sql_2.md'));
    await fs.rm(path.join(fx.memoryDir, 'project_x.md'));
    const shared = path.join(fx.root, 'shared-note.md');
    await fs.writeFile(shared, '---\nname: Shared\ndescription: kept elsewhere\ntype: reference\n---\nShared.\n');
    await fs.symlink(shared, path.join(fx.memoryDir, 'reference_shared.md'));
    const json = await cli('dream', '--project', fx.dir, '--force', '--offline', '--json');
    expect(json.code, json.err).toBe(0);
    const flags = json.json().flags as { kind: string; files: string[]; message: string }[];
    expect(flags.filter((f) => f.kind === 'unreadable')).toEqual([]);
    expect(flags).toContainEqual({
      kind: 'note',
      files: ['reference_shared.md'],
      message: 'reference_shared.md is a symbolic link: a dream never follows or changes links, so it was left as it is.',
    });
    expect((await fs.lstat(path.join(fx.memoryDir, 'reference_shared.md'))).isSymbolicLink()).toBe(true);
  });

  it('status: each gate with its value, cheapest first; exit 1 while not eligible', async () => {
    const r = await cli('dream', 'status', '--project', fx.dir, '--json');
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({
      eligible: false,
      gates: [
        { name: 'time', checked: true, passed: true, value: null, threshold: 24 },
        { name: 'sessions', checked: true, passed: false, value: 0, threshold: 5 },
        { name: 'lock', checked: false, passed: false, value: null, threshold: null },
      ],
      lastConsolidatedAt: null,
      disabled: { reason: 'auto-dream-off' },
      claudeCode: { wouldDream: false, rule: '2.1.332', flag: null, setting: null },
    });
    // Memdir's scheduler dreams only where the user turned it on (R-DREAM-GATE).
    await fs.writeFile(path.join(fx.home, 'settings.json'), JSON.stringify({ autoDreamEnabled: true }));
    for (let i = 0; i < 5; i++) await fx.transcript(`0b6f1c1e-8a0e-4d2b-9b7e-${String(i).padStart(12, '0')}`, [{ at: '2026-11-30T10:00:00Z', text: 'hi' }]);
    const open = await cli('dream', 'status', '--project', fx.dir);
    expect(open.code).toBe(0);
    expect(open.out).toContain('Memdir may dream it now.');
    expect(open.out).toContain('Claude Code itself: does not dream it.');
    // s45 walk: the table said "time … 24" (24 what?) where the app says "24 h".
    expect(open.out).toMatch(/^time\s+yes\s+yes\s+—\s+24 h\s*$/m);
    expect(open.out).toMatch(/^sessions\s+yes\s+yes\s+5\s+5\s*$/m);
  });

  it('transcripts whose recorded cwd is not their folder (a moved or copied project) give one answer: dream status, extract and the version agree', async () => {
    // A real transcript (claude-code-log's session_b: version 1.0.0, cwd /tmp) copied into this project's folder from
    // another machine: the cwd it records names a directory that is not this folder's. Claude Code, launched in the
    // directory this folder is named after, counts and resumes it by its folder (R-DREAM-GATE, R-LAYOUT).
    const source = await fs.readFile('/work/shared/fixtures/transcripts/claude-code-log/session_b.jsonl', 'utf8');
    const copied = source.replaceAll('"cwd": "/tmp"', '"cwd": "/Users/alex/code/old-name"');
    expect(copied).toContain('/Users/alex/code/old-name');
    for (const id of ['0b6f1c1e-8a0e-4d2b-9b7e-000000000001', '0b6f1c1e-8a0e-4d2b-9b7e-000000000002'])
      await fs.writeFile(path.join(fx.projectDir, `${id}.jsonl`), copied);
    const status = (await cli('dream', 'status', '--project', fx.dir, '--json')).json() as {
      gates: { name: string; value: number | null }[];
      claudeCode: { version: string | null; reason: string };
    };
    expect(status.gates.find((g) => g.name === 'sessions')?.value).toBe(2);
    expect(status.claudeCode.version).toBe('1.0.0');
    expect(status.claudeCode.reason).not.toContain('no transcript names a version');
    const extract = await cli('extract', '--project', fx.dir, '--offline', '--dry-run', '--json');
    expect(extract.code).toBe(0);
    expect((extract.json().transcripts as { path: string }[]).map((t) => path.basename(t.path)).sort()).toEqual([
      '0b6f1c1e-8a0e-4d2b-9b7e-000000000001.jsonl',
      '0b6f1c1e-8a0e-4d2b-9b7e-000000000002.jsonl',
    ]);
  });

  it("a memory whose folder's sessions read another memory (older tools wrote it) has no sessions: status counts none, extract says where they go", async () => {
    // Sessions launched in repo/sub read repo's memory (R-KEY, R-LAYOUT); an older tool left a memory in sub's folder.
    const repo = path.join(fx.root, 'repo');
    await fs.mkdir(path.join(repo, 'sub'), { recursive: true });
    execFileSync('git', ['init', '-q', repo], { stdio: 'pipe' });
    const subFolder = path.join(fx.home, 'projects', sanitizeDirName(path.join(repo, 'sub')));
    await fs.mkdir(path.join(subFolder, 'memory'), { recursive: true });
    await fs.writeFile(path.join(subFolder, 'memory', 'user_me.md'), topic({ name: 'Me', description: 'Backend', type: 'user' }, 'Go.'));
    const source = await fs.readFile('/work/shared/fixtures/transcripts/claude-code-log/session_b.jsonl', 'utf8');
    await fs.writeFile(
      path.join(subFolder, '0b6f1c1e-8a0e-4d2b-9b7e-000000000003.jsonl'),
      source.replaceAll('"cwd": "/tmp"', `"cwd": ${JSON.stringify(path.join(repo, 'sub'))}`),
    );
    const sub = sanitizeDirName(path.join(repo, 'sub'));
    const status = (await cli('dream', 'status', '--project', sub, '--json')).json() as { gates: { name: string; value: number | null }[] };
    expect(status.gates.find((g) => g.name === 'sessions')?.value).toBe(0);
    const extract = await cli('extract', '--project', sub, '--offline', '--dry-run');
    expect(extract.code).toBe(0);
    expect(extract.out).toContain(`read projects/${sanitizeDirName(repo)}/memory instead`);
    expect(extract.out).not.toContain('no transcripts');
    // The repository's own project counts that session and extracts it.
    const own = (await cli('dream', 'status', '--project', repo, '--json')).json() as { gates: { name: string; value: number | null }[] };
    expect(own.gates.find((g) => g.name === 'sessions')?.value).toBe(1);
  });

  it('dreams (offline rules), prints the id and changes as JSON, and reverts by id alone', async () => {
    const closed = await cli('dream', '--project', fx.dir, '--offline', '--json');
    expect(closed.code).toBe(1);
    expect(closed.json()).toMatchObject({ id: null, status: 'not-started', reason: expect.stringMatching(/Auto-dream is not set/) });
    // A dry run answers what the same command would do: the same closed gates stop it.
    const dryClosed = await cli('dream', '--project', fx.dir, '--offline', '--dry-run', '--json');
    expect(dryClosed.code).toBe(1);
    const wouldDo = closed.json() as { id: null; status: string; reason: string };
    expect(dryClosed.json()).toMatchObject({ id: wouldDo.id, status: wouldDo.status, reason: wouldDo.reason });

    const dry = await cli('dream', '--project', fx.dir, '--offline', '--force', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(dry.json()).toMatchObject({ id: null, status: 'dry-run' });
    expect(await fx.read('feedback_sql_2.md')).not.toBeNull();

    const r = await cli('dream', '--project', fx.dir, '--offline', '--force', '--json');
    expect(r.code).toBe(0);
    const out = r.json() as { id: string; status: string; changed: { file: string; action: string }[]; report: string; method: string; rev: string };
    expect(out).toMatchObject({ status: 'completed', method: 'rules', rev: expect.any(String) });
    expect(out.id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(out.changed.map((c) => `${c.action} ${c.file}`)).toEqual([
      'create MEMORY.md',
      'update feedback_sql.md',
      'delete feedback_sql_2.md',
      'update project_x.md',
    ]);
    expect(out.report).toContain('"昨天" → 2026-03-05');
    expect(await fx.read('project_x.md')).toContain('2026-03-05决定2026-03-13上线。');

    const status = await cli('dream', 'status', '--project', fx.dir, '--json');
    expect(status.json()).toMatchObject({ eligible: false, lastConsolidatedAt: expect.any(String) });
    expect((status.json().gates as { name: string; checked: boolean; passed: boolean }[]).map((g) => [g.name, g.checked, g.passed])).toEqual([
      ['time', true, false],
      ['sessions', false, false],
      ['lock', false, false],
    ]);

    const list = await cli('dream', 'list', '--project', fx.dir);
    expect(list.out).toContain(out.id);

    const revert = await cli('dream', 'revert', out.id, '--json');
    expect(revert.code).toBe(0);
    expect((revert.json() as { restored: string[] }).restored.sort()).toEqual(['MEMORY.md', 'feedback_sql.md', 'feedback_sql_2.md', 'project_x.md']);
    expect(await fx.read('MEMORY.md')).toBeNull();
    expect(await fx.read('feedback_sql_2.md')).not.toBeNull();
  });

  it('revert after Claude Code added a memory is the one undo: the merged-away memory comes back with its pointer, and the new pointer stays', async () => {
    const index = '# Memory\n- [No ORM](feedback_sql.md) — We write SQL by hand\n- [No ORM again](feedback_sql_2.md) — We write SQL by hand\n';
    await fx.write('MEMORY.md', index);
    const r = await cli('dream', '--project', fx.dir, '--offline', '--force', '--allow-deletes', '--json');
    const id = (r.json() as { id: string }).id;
    expect(await fx.read('feedback_sql_2.md')).toBeNull();
    // Claude Code, in a session since: a new memory and its pointer.
    await fx.write('d.md', topic({ name: 'D', description: 'delta', type: 'project' }, 'ddd'));
    await fx.write('MEMORY.md', (await fx.read('MEMORY.md')) + '- [D](d.md) — delta\n');
    const revert = await cli('dream', 'revert', id);
    expect([revert.code, revert.out]).toEqual([0, expect.stringContaining('The pointer to feedback_sql_2.md is back at line 3 of MEMORY.md, where it was.')]);
    expect(revert.out).not.toContain('warning');
    const after = (await fx.read('MEMORY.md'))!;
    expect(after).toContain('- [No ORM again](feedback_sql_2.md) — We write SQL by hand\n');
    expect(after).toContain('- [D](d.md) — delta\n');
    expect(await fx.read('feedback_sql_2.md')).not.toBeNull();
    expect(await fx.read('d.md')).not.toBeNull();
    const lint = await cli('lint', '--project', fx.dir, '--json');
    const orphans = (lint.json() as { projects: { problems: { code: string; file: string }[] }[] }).projects[0]!.problems.filter((p) => p.code === 'orphan');
    expect(orphans.map((p) => p.file)).not.toContain('feedback_sql_2.md');
    expect(orphans.map((p) => p.file)).not.toContain('d.md');
  });

  it('revert of a dream whose memory was edited since writes nothing and says which; overwriting keeps later index lines', async () => {
    await fx.write('MEMORY.md', '- [No ORM](feedback_sql.md) — We write SQL by hand\n- [No ORM again](feedback_sql_2.md) — We write SQL by hand\n');
    const id = ((await cli('dream', '--project', fx.dir, '--offline', '--force', '--allow-deletes', '--json')).json() as { id: string }).id;
    const edited = (await fx.read('feedback_sql.md')) + 'Claude Code added: migrations are SQL files too.\n';
    await fx.write('feedback_sql.md', edited);
    await fx.write('d.md', topic({ name: 'D', description: 'delta', type: 'project' }, 'ddd'));
    await fx.write('MEMORY.md', (await fx.read('MEMORY.md')) + '- [D](d.md) — delta\n');
    const refused = await cli('dream', 'revert', id, '--json');
    expect(refused.code).toBe(1);
    expect(refused.json()).toMatchObject({
      restored: [],
      rev: null,
      warnings: [{ file: 'feedback_sql.md', message: expect.stringMatching(/nothing was reverted/) }],
    });
    expect([await fx.read('feedback_sql.md'), await fx.read('feedback_sql_2.md')]).toEqual([edited, null]);
    const anyway = await cli('dream', 'revert', id, '--overwrite-changed');
    expect(anyway.code).toBe(0);
    expect(await fx.read('feedback_sql_2.md')).not.toBeNull();
    const after = (await fx.read('MEMORY.md'))!;
    expect(after).toContain('(feedback_sql_2.md)');
    expect(after).toContain('- [D](d.md) — delta\n');
  });

  it('the dream record says the truth whichever door undid its entry: memdir undo reverts it, undoing that brings it back, and revert agrees', async () => {
    await fx.write('MEMORY.md', '- [No ORM](feedback_sql.md) — We write SQL by hand\n- [No ORM again](feedback_sql_2.md) — We write SQL by hand\n');
    const dreamt = (await cli('dream', '--project', fx.dir, '--offline', '--force', '--allow-deletes', '--json')).json() as { id: string; rev: string };
    const recordOf = async () =>
      ((await cli('dream', 'list', '--project', fx.dir, '--json')).json() as { dreams: { id: string; revert: { rev: string | null } | null }[] }).dreams.find(
        (d) => d.id === dreamt.id,
      )!;
    // History's door: the dream's entry undone by `memdir undo`.
    const undone = await cli('undo', fx.dir, dreamt.rev.slice(0, 10), '--json');
    expect(undone.code).toBe(0);
    const undoRev = (undone.json() as { undone: { rev: string } }).undone.rev;
    expect(await fx.read('feedback_sql_2.md')).not.toBeNull();
    expect((await recordOf()).revert).toMatchObject({ rev: undoRev });
    expect((await cli('dream', 'list', '--project', fx.dir)).out).toContain('reverted');
    // A second revert says it was reverted already, and how to bring it back; it writes nothing.
    const again = await cli('dream', 'revert', dreamt.id);
    expect(again.code).toBe(2);
    expect(again.err).toContain(`Dream ${dreamt.id} was already reverted`);
    expect(again.err).toContain(undoRev.slice(0, 10));
    // Undoing that undo (a redo) brings the dream back: the record says so, and Revert reverts it again.
    const redone = await cli('undo', fx.dir, undoRev, '--json');
    expect(redone.code).toBe(0);
    const redoRev = (redone.json() as { undone: { rev: string } }).undone.rev;
    expect(await fx.read('feedback_sql_2.md')).toBeNull();
    expect((await recordOf()).revert).toBeNull();
    const revert = await cli('dream', 'revert', dreamt.id, '--json');
    expect(revert.code).toBe(0);
    const revertRev = (revert.json() as { rev: string }).rev;
    expect(await fx.read('feedback_sql_2.md')).not.toBeNull();
    expect((await recordOf()).revert).toMatchObject({ rev: revertRev });
    // The revert's own entry undone through history: back again.
    expect((await cli('undo', fx.dir, revertRev)).code).toBe(0);
    expect((await recordOf()).revert).toBeNull();
    expect(await fx.read('feedback_sql_2.md')).toBeNull();
    expect(redoRev).not.toBe(revertRev);
  });

  it('a restore that takes the dream back marks it reverted, whole or the last file of it; undoing the restore brings it back (s37)', async () => {
    await fx.write('MEMORY.md', '- [No ORM](feedback_sql.md) — We write SQL by hand\n- [No ORM again](feedback_sql_2.md) — We write SQL by hand\n');
    const dreamt = (await cli('dream', '--project', fx.dir, '--offline', '--force', '--allow-deletes', '--json')).json() as { id: string; rev: string };
    const recordOf = async () =>
      ((await cli('dream', 'list', '--project', fx.dir, '--json')).json() as { dreams: { id: string; revert: { rev: string | null } | null }[] }).dreams.find(
        (d) => d.id === dreamt.id,
      )!;
    // The whole memory directory as it was before the dream.
    const restored = await cli('restore', fx.dir, `${dreamt.rev}~1`, '--json');
    expect(restored.code).toBe(0);
    const restoreRev = (restored.json() as { restored: { rev: string } }).restored.rev;
    expect(await fx.read('feedback_sql_2.md')).not.toBeNull();
    expect((await recordOf()).revert).toMatchObject({ rev: restoreRev });
    // Undoing the restore brings the dream's changes back, and Revert is offered again.
    expect((await cli('undo', fx.dir, restoreRev)).code).toBe(0);
    expect(await fx.read('feedback_sql_2.md')).toBeNull();
    expect((await recordOf()).revert).toBeNull();
    // One file restored takes back part of the dream: it still stands.
    const one = await cli('restore', fx.dir, `${dreamt.rev}~1`, 'feedback_sql_2.md', '--json');
    expect(one.code).toBe(0);
    expect((await recordOf()).revert).toBeNull();
  });

  it('confirm --json prints what memdir dream --json prints (its --help says so): the confirmed dream with its method, flags, tokens', async () => {
    for (const rel of ['project_x.md', 'user_me.md', 'reference_y.md']) await fs.rm(path.join(fx.memoryDir, rel));
    const held = await cli('dream', '--project', fx.dir, '--offline', '--force', '--json');
    expect([held.code, held.json().status]).toEqual([1, 'needs-confirmation']);
    const confirmed = await cli('dream', 'confirm', held.json().id as string, '--json');
    expect(confirmed.code).toBe(0);
    expect(confirmed.json()).toMatchObject({ id: held.json().id, status: 'completed', method: 'rules', rev: expect.any(String) });
    expect(Object.keys(confirmed.json())).toEqual(Object.keys(held.json()));
  });

  it('fails in words with exit 2 on usage and unknown ids', async () => {
    expect((await cli('dream')).code).toBe(2);
    const unknown = await cli('dream', 'revert', '20200101-000000-abcd');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/There is no dream 20200101-000000-abcd/);
    const nowhere = await cli('dream', 'status', '--project', '/no/such/dir');
    expect(nowhere.code).toBe(2);
  });
});

describe('memdir dream and the app resolve the model the same way (issue 17: one front door)', () => {
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('uses the API key kept in Memdir’s credential store (SPEC §9: "or the app’s settings"), as "Dream now" does', async () => {
    await new FileCredentialStore(fx.dataDir).set(CREDENTIAL_NAMES.anthropicApiKey, 'sk-ant-api03-dream-cli-not-a-real-key');
    await fs.writeFile(path.join(fx.dataDir, 'settings.json'), JSON.stringify({ model: { maxRetries: 0, timeoutMs: 5_000 } }));
    env = { ...env, ANTHROPIC_BASE_URL: fake.url };
    fake.enqueue({
      kind: 'message',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'finish', input: { summary: 'Nothing to merge.' } }],
      stopReason: 'tool_use',
      usage: { input_tokens: 900, output_tokens: 40 },
    });
    const r = await cli('dream', '--project', fx.dir, '--force', '--dry-run', '--json');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'dry-run', method: 'model', fallbackReason: null });
    const [request] = fake.messageRequests();
    // SDK 1.x sends the key as a bearer token; older versions used x-api-key.
    expect(String(request?.headers['x-api-key'] ?? request?.headers.authorization)).toContain('sk-ant-api03-dream-cli-not-a-real-key');
  });
});
