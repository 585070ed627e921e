import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../main.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../main/llm/test-support/fake-anthropic.js';
import { type ExtractFixture, createExtractFixture, operationsReply } from '../../main/extract/test-support/extract-fixture.js';
import { updateAppSettings } from '../../main/settings/app-settings.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../../main/core/test-support/small-disk.js';

let fx: ExtractFixture;
let fake: FakeAnthropic;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  fx = await createExtractFixture('memdir-cli-extract-');
  fake = await startFakeAnthropic({ fallback: operationsReply() });
  env = { MEMDIR_DATA_DIR: fx.dataDir, CLAUDE_CONFIG_DIR: fx.home, ANTHROPIC_API_KEY: 'sk-ant-api03-test-key-not-real', ANTHROPIC_BASE_URL: fake.url };
  await updateAppSettings(fx.dataDir, { model: { maxRetries: 0 } });
});
afterEach(async () => {
  await fake.close();
  await fx.cleanup();
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: fx.root });
  return { code, out, err };
}

const memory = {
  action: 'create',
  file: 'feedback_real_db.md',
  type: 'feedback',
  name: 'Real database',
  description: 'Integration tests use a real database',
  body: 'Mocks hid a bug.\n',
};

describe('memdir extract', () => {
  it('a project with no session yet is done (exit 0): nothing to read, said so; no model is asked', async () => {
    const text = await run('extract', '--project', fx.cwd);
    expect(text.err).toBe('');
    expect(text.out).toContain('No session to read yet: Claude Code has no transcripts for');
    expect(text.code).toBe(0);
    const json = await run('extract', '--project', fx.cwd, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ project: expect.any(String), mode: 'review', dryRun: false, turns: [], transcripts: [] });
    expect(fake.requests.length).toBe(0);
  });

  it('prints the turns with their outcome as JSON (review mode by default), by path or directory name', async () => {
    const t = fx.builder();
    t.prompt('Never mock the database.').assistant('ok', { stopReason: 'end_turn' });
    t.prompt('save it')
      .assistant([{ type: 'tool_use', id: 'w', name: 'Write', input: { file_path: path.join(fx.memoryDir, 'x.md'), content: '' } }])
      .toolResult('w', 'ok')
      .assistant('saved', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), t.take());
    fake.enqueue(operationsReply(memory));
    const { code, out } = await run('extract', '--project', fx.cwd, '--json');
    expect(code).toBe(0);
    const json = JSON.parse(out) as { turns: Record<string, unknown>[]; mode: string };
    expect(json.mode).toBe('review');
    expect(json.turns).toEqual([
      expect.objectContaining({
        sessionId: 'session-1',
        lastUuid: expect.any(String),
        skipped: false,
        operations: [expect.objectContaining({ file: 'feedback_real_db.md', disposition: 'queued', proposalId: expect.any(String) })],
      }),
      expect.objectContaining({ skipped: true, reason: 'memory-written-by-agent' }),
    ]);
    expect(json.turns[1]).not.toHaveProperty('operations');
    const again = await run('extract', '--project', fx.dir, '--json');
    expect(JSON.parse(again.out).turns).toEqual([]);
  });

  it('an operation refused because it would write a secret is logged with that secret masked (review x2 F4)', async () => {
    // Assembled at run time, so no key-shaped literal sits in the repository.
    const token = ['ghp_', 'R8mK2vQ9', 'xT4pL7nW', '3zY6bC1d', 'F5hJ0sA8', 'eG2u'].join('');
    const t = fx.builder();
    t.prompt(`Remember: the CI token is ${token}`).assistant('ok', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), t.take());
    fake.enqueue(operationsReply({ ...memory, file: 'reference_ci.md', type: 'reference', name: 'CI token', body: `The CI token is ${token}\n` }));
    const { code, out } = await run('extract', '--project', fx.cwd, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(out).turns[0].operations).toEqual([expect.objectContaining({ disposition: 'refused' })]);
    const log = await fs.readFile(path.join(fx.dataDir, 'extract', 'log.jsonl'), 'utf8');
    expect(log).toContain('"disposition":"refused"');
    expect(log).toContain(`The CI token is ${token.slice(0, 4)}`);
    expect(log).not.toContain(token.slice(8));
  });

  it("apply mode: an update that overlaps the person's edit made while the model answered is not written, said in full, and queued", async () => {
    await updateAppSettings(fx.dataDir, { extraction: { mode: 'apply' } });
    await fs.writeFile(fx.transcript(), fx.builder().prompt('The ORM also hid slow joins.').assistant('ok', { stopReason: 'end_turn' }).take());
    const sql = path.join(fx.memoryDir, 'feedback_sql.md');
    const edited = '---\nname: No ORM\ndescription: We write SQL by hand\ntype: feedback\n---\nThe ORM hid N+1 queries (the person, meanwhile).\n';
    fake.setHandler(async () => {
      await fs.writeFile(sql, edited);
      return operationsReply({
        ...memory,
        action: 'update',
        file: 'feedback_sql.md',
        name: 'No ORM',
        description: 'We write SQL by hand',
        body: 'The ORM hid N+1 queries and slow joins.\n',
      });
    });
    const { code, out } = await run('extract', '--project', fx.dir);
    expect(code).toBe(0);
    expect(await fs.readFile(sql, 'utf8')).toBe(edited);
    expect(out).toContain(
      'feedback_sql.md: Not written: feedback_sql.md was changed since the model read it, and the change overlaps its update. It waits in the review queue: compare both and choose which to keep.',
    );
    expect(out).toContain('1 proposal queued: review it in the app (Review queue).');
  });

  it('--dry-run writes nothing; --offline lists "remember this" statements; text output reads well', async () => {
    await fs.writeFile(
      fx.transcript(),
      fx.builder().prompt('Remember that the staging DB resets on Mondays.').assistant('ok', { stopReason: 'end_turn' }).take(),
    );
    fake.setHandler(() => operationsReply(memory));
    const dry = JSON.parse((await run('extract', '--project', fx.dir, '--dry-run', '--json')).out);
    expect(dry.turns[0].operations[0].disposition).toBe('dry-run');
    const offline = JSON.parse((await run('extract', '--project', fx.dir, '--offline', '--json')).out);
    expect(offline.turns[0]).toMatchObject({ method: 'offline', operations: [expect.objectContaining({ disposition: 'queued', type: 'feedback' })] });
    expect(fake.messageRequests()).toHaveLength(1);
    await fs.appendFile(fx.transcript(), fx.builder().prompt('next').assistant('ok', { stopReason: 'end_turn' }).take());
    const text = await run('extract', '--project', fx.dir);
    expect(text.out).toMatch(/SESSION\s+TURNS\s+OUTCOME/);
    expect(text.out).toContain('queued');
  });

  it('an operation whose file name is not text is refused in words that say so, named as one without a file name (s40)', async () => {
    await fs.writeFile(fx.transcript(), fx.builder().prompt('Never mock the database.').assistant('ok', { stopReason: 'end_turn' }).take());
    const { type: _type, ...untyped } = memory;
    fake.enqueue(operationsReply({ ...untyped, file: 42 }, { ...memory, file: ['feedback_x.md'] }));
    const { code, out } = await run('extract', '--project', fx.dir);
    expect(code).toBe(0);
    expect(out).toContain('an operation without a file name: The file name it gave is not text (42).\n');
    expect(out).toContain('an operation without a file name: The file name it gave is not text (["feedback_x.md"]).\n');
    expect(out).not.toMatch(/^: /m);
    expect(out).toContain('refused, refused  an operation without a file name (The file name it gave is not text (42).)');
  });

  it('says why the model was not used when the offline path made suggestions: a refused key, an unusable answer (s40)', async () => {
    await fs.writeFile(
      fx.transcript(),
      fx.builder().prompt('Remember that the staging DB resets on Mondays.').assistant('ok', { stopReason: 'end_turn' }).take(),
    );
    fake.enqueue({ kind: 'error', status: 401 });
    const refused = await run('extract', '--project', fx.dir);
    expect(refused.out).toContain('queued');
    expect(refused.out).toContain('session-1: The model could not be used: The API refused the key (HTTP 401)');
    expect(refused.out).toContain(
      `Check ANTHROPIC_API_KEY (or the key saved in the app's Settings). Offline path instead: 1 "remember this" statement offered as suggestion.`,
    );
    await fs.appendFile(fx.transcript(), fx.builder().prompt('Remember that deploys happen on Tuesdays.').assistant('ok', { stopReason: 'end_turn' }).take());
    fake.enqueue({ kind: 'message', text: 'Sure, noted.' });
    const prose = await run('extract', '--project', fx.dir);
    expect(prose.out).toContain(
      'session-1: The model\'s answer was not used: The model answered in prose instead of JSON ("Sure, noted."). Offline path instead: 1 "remember this" statement offered as suggestion.',
    );
  });

  it('fails with exit 2 and one line for an unknown project or a missing --project', async () => {
    expect(await run('extract', '--project', '-nope')).toMatchObject({ code: 2, err: expect.stringContaining('There is no project "-nope" under') });
    expect((await run('extract')).code).toBe(2);
  });
});

describe('memdir session status', () => {
  it('lists recent sessions with their counters', async () => {
    const t = fx.builder();
    t.prompt('work')
      .assistant([{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'ls' } }], { usage: { cache_read_input_tokens: 8_000 } })
      .toolResult('a', 'ok')
      .assistant('done', { stopReason: 'end_turn', usage: { cache_read_input_tokens: 8_000 } });
    await fs.writeFile(fx.transcript(), t.take());
    const { code, out } = await run('session', 'status', '--json');
    expect(code).toBe(0);
    // 8,104 tokens of input and cache plus 20 of output: below the 10,000 a first note needs.
    expect(JSON.parse(out).sessions).toEqual([
      expect.objectContaining({
        sessionId: 'session-1',
        project: fx.dir,
        contextTokens: 8124,
        started: false,
        toolCallsSinceUpdate: 1,
        lastResponseUsedTools: false,
        due: false,
        tokensToNext: 1876,
      }),
    ]);
    expect((await run('session', 'status')).out).toContain('8,124 / 10,000 to start');
    await expect(fs.readdir(path.join(fx.dataDir, 'session-memory'))).rejects.toThrow();
  });
  it('shows how much of each note Claude Code gets back, and when it had to be cut to its 10,000 characters', async () => {
    const t = fx.builder();
    t.prompt('work').assistant('done', { stopReason: 'end_turn', usage: { cache_read_input_tokens: 12_000 } });
    await fs.writeFile(fx.transcript(), t.take());
    const noteFile = path.join(fx.dataDir, 'session-memory', 'session-memory-session-1.md');
    await fs.mkdir(path.dirname(noteFile), { recursive: true });
    await fs.writeFile(noteFile, '# Session memory\n\n## Current task\nWork.\n');
    expect((await run('session', 'status')).out).toMatch(/HANDED BACK[\s\S]*\b2\d\d \/ 10,000\s/);
    await fs.writeFile(noteFile, `# Session memory\n\n## Where the workflow stands\n${'- a step done and checked\n'.repeat(600)}`);
    expect((await run('session', 'status')).out).toMatch(/\b\d,\d{3} \/ 10,000 \(cut\)/);
    const { handBack } = JSON.parse((await run('session', 'status', '--json')).out).sessions[0];
    expect(handBack).toEqual({ chars: expect.any(Number), wholeChars: expect.any(Number), cut: true });
    expect(handBack.chars).toBeLessThanOrEqual(10_000);
    expect(handBack.wholeChars).toBeGreaterThan(10_000);
  });
});

describe('memdir hooks', () => {
  it('shows the diff without --yes, writes with it, and disconnects cleanly', async () => {
    await fs.writeFile(path.join(fx.home, 'settings.json'), '{\n  "model": "opus"\n}\n');
    const preview = await run('hooks', 'connect');
    expect(preview.out).toContain('+  "hooks": {');
    expect(preview.out).toContain('run again with --yes');
    expect(JSON.parse((await run('hooks', 'status', '--json')).out)).toMatchObject({ connected: 'none' });
    // s45 walk: not connected, it said "app is not running: hook events are spooled": Claude Code sends none.
    const unconnected = (await run('hooks', 'status')).out;
    expect(unconnected).not.toMatch(/spooled|receives hook events/);
    expect(unconnected).toContain('Claude Code sends no hook events: Memdir watches the transcripts');
    const applied = JSON.parse((await run('hooks', 'connect', '--yes', '--json')).out);
    expect(applied).toMatchObject({ changed: true, applied: true, backup: expect.stringContaining('memdir-backup') });
    expect(JSON.parse((await run('hooks', 'status', '--json')).out)).toMatchObject({ connected: 'all' });
    expect((await run('hooks', 'connect', '--yes')).out).toContain('Already connected');
    await run('hooks', 'disconnect', '--yes');
    expect(await fs.readFile(path.join(fx.home, 'settings.json'), 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    await fs.writeFile(path.join(fx.home, 'settings.json'), '{ nope');
    expect(await run('hooks', 'connect', '--yes')).toMatchObject({ code: 2, err: expect.stringContaining('not valid JSON') });
  });
});

describe.skipIf(smallDiskUnavailable !== null)(
  `memdir extract with the cursor's disk full${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`,
  () => {
    let disk: SmallDisk | null = null;
    afterEach(() => {
      disk?.unmount();
      disk = null;
    });

    it('a run that wrote its memory but could not save where extraction got to says both, exits 0, and the next run completes it', async () => {
      await updateAppSettings(fx.dataDir, { extraction: { mode: 'apply' } });
      const t = fx.builder();
      t.prompt('Never mock the database.').assistant('ok', { stopReason: 'end_turn' });
      await fs.writeFile(fx.transcript(), t.take());
      // Only where extraction got to cannot be saved: its folder is a full disk of its own.
      disk = mountSmallDisk(path.join(fx.dataDir, 'cursors'), 64 * 1024);
      disk.leaveFree(0);
      fake.enqueue(operationsReply(memory));
      const first = await run('extract', '--project', fx.cwd, '--json');
      expect(first.code).toBe(0);
      expect(await fs.readFile(path.join(fx.memoryDir, 'feedback_real_db.md'), 'utf8')).toContain('Mocks hid a bug.');
      const json = JSON.parse(first.out) as {
        turns: { operations?: { disposition: string }[] }[];
        transcripts: { unsaved: string | null; pending: boolean }[];
      };
      expect(json.turns.flatMap((x) => x.operations ?? []).map((o) => o.disposition)).toEqual(['applied']);
      const said = json.transcripts[0]!.unsaved ?? '';
      expect(said).toMatch(/^Created feedback_real_db\.md, but Memdir could not save where extraction got to: the disk holding .* is full/);
      expect(said).toMatch(/the next extraction completes it/);
      expect(said).not.toMatch(/\.json\b|ENOSPC/);
      // In words too.
      fake.enqueue(operationsReply(memory));
      const text = await run('extract', '--project', fx.cwd);
      expect(text.code).toBe(0);
      expect(text.out).toContain('but Memdir could not save where extraction got to');
      disk.free();
      const again = await run('extract', '--project', fx.cwd, '--json');
      expect(again.code).toBe(0);
      expect(JSON.parse(again.out).transcripts[0]).toMatchObject({ unsaved: null, resumed: true });
      expect(fake.messageRequests()).toHaveLength(1);
      const next = await run('extract', '--project', fx.cwd, '--json');
      expect(JSON.parse(next.out).turns).toEqual([]);
    });
  },
);
