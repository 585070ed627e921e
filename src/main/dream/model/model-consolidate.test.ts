import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listHistory } from '../../history/history.js';
import { resolveProvider } from '../../llm/resolve-provider.js';
import { type FakeAnthropic, type FakeReply, startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import type { ModelProvider } from '../../llm/types.js';
import { defaultAppSettings, parseAppSettings } from '../../settings/app-settings.js';
import { type DreamRunOptions, runDream } from '../run-dream.js';
import { type DreamFixture, createDreamFixture, topic } from '../test-support/dream-fixture.js';

let fx: DreamFixture;
let fake: FakeAnthropic;
let provider: ModelProvider;

const DUP = topic(
  { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback', originSessionId: 's-1' },
  'Mocks hid a migration bug.',
);
const MERGED = topic(
  { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback' },
  'Mocks hid a migration bug.\n\nSources: feedback_db.md (session s-1), feedback_db_copy.md (session s-2).',
);
const FREEZE = topic(
  { name: 'Freeze', description: 'Release freeze starts 2026-03-13', type: 'project' },
  'The freeze starts 2026-03-13 (said on 2026-03-06).',
);

beforeEach(async () => {
  fx = await createDreamFixture('memdir-dream-model-');
  await fx.write('feedback_db.md', DUP);
  await fx.write('feedback_db_copy.md', DUP.replace('s-1', 's-2'));
  await fx.write(
    'project_freeze.md',
    topic({ name: 'Freeze', description: 'Release freeze starts next Friday', type: 'project' }, 'The freeze starts next Friday.'),
  );
  await fx.write('user_role.md', topic({ name: 'Role', description: 'Backend engineer', type: 'user' }, 'Go and Postgres.'));
  await fx.write('team/reference_rota.md', topic({ name: 'Rota', description: 'On-call rota', type: 'reference' }, 'PagerDuty.'));
  await fx.write(
    'MEMORY.md',
    '- [Real database in tests](feedback_db.md) — Do not mock the database\n- [Copy](feedback_db_copy.md) — copy\n- [Freeze](project_freeze.md) — Release freeze starts next Friday\n',
  );
  await fx.transcript('s-1', [{ at: '2026-03-06T12:00:00Z', text: 'Remember: the release freeze starts next Friday.' }]);
  fake = await startFakeAnthropic();
  const settings = parseAppSettings({ model: { provider: 'anthropic', maxRetries: 0, timeoutMs: 5_000 } }).settings;
  provider = await resolveProvider(
    settings,
    { ANTHROPIC_API_KEY: 'sk-ant-api03-dream-test-not-a-real-key', ANTHROPIC_BASE_URL: fake.url },
    { dataDir: fx.dataDir },
  );
});
afterEach(async () => {
  await fake.close();
  await fx.cleanup();
});

let calls = 0;
const use = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id: `toolu_${++calls}`, name, input });
const turn = (...content: Record<string, unknown>[]): FakeReply => ({
  kind: 'message',
  content,
  stopReason: 'tool_use',
  usage: { input_tokens: 1000, output_tokens: 200 },
});

function options(extra: Partial<DreamRunOptions> = {}): DreamRunOptions {
  return {
    memoryDir: fx.memoryDir,
    projectDir: fx.projectDir,
    dir: fx.dir,
    dataDir: fx.dataDir,
    trigger: 'manual',
    settings: defaultAppSettings().dream,
    provider,
    force: true,
    ...extra,
  };
}

/** The tool results the loop sent back in request `i`, by tool_use id. */
function toolResults(i: number): Record<string, { content: string; is_error?: boolean }> {
  const messages = fake.messageRequests()[i]!.body!.messages as { role: string; content: unknown }[];
  const last = messages.at(-1)!.content as { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
  return Object.fromEntries(
    last.filter((b) => b.type === 'tool_result').map((b) => [b.tool_use_id, { content: b.content, ...(b.is_error ? { is_error: true } : {}) }]),
  );
}

describe('a dream with a model (the fake Messages API over HTTP)', () => {
  it('runs a bounded tool-using loop: reads, greps, proposes; refused proposals go back as errors', async () => {
    calls = 0;
    fake.enqueue(
      turn(use('list_memories', {}), use('read_memory', { file: 'feedback_db_copy.md' })),
      turn(
        use('grep_transcripts', { pattern: 'freeze starts next Friday', ignore_case: true }),
        use('write_memory', { file: 'feedback_db.md', content: MERGED, reason: 'Merged the copy in.' }),
        use('delete_memory', { file: 'feedback_db_copy.md', reason: 'Duplicate of feedback_db.md.', merged_into: 'feedback_db.md' }),
      ),
      turn(
        use('write_memory', { file: '../outside.md', content: FREEZE, reason: 'escape' }),
        use('write_memory', { file: '/etc/memdir.md', content: FREEZE, reason: 'absolute' }),
        use('write_memory', { file: 'MEMORY.md', content: '- nothing', reason: 'index' }),
        use('write_memory', { file: 'team/user_me.md', content: topic({ name: 'Me', description: 'Who I am', type: 'user' }, 'Private.'), reason: 'share me' }),
        use('write_memory', {
          file: 'reference_token.md',
          content: topic({ name: 'Token', description: 'CI token', type: 'reference' }, 'token: ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5h'),
          reason: 'keep the token',
        }),
        use('write_memory', { file: 'project_bad.md', content: 'no frontmatter at all', reason: 'bad' }),
        use('delete_memory', { file: 'team/reference_rota.md', reason: 'retire' }),
        use('write_memory', { file: 'project_freeze.md', content: FREEZE, reason: '"next Friday" said on 2026-03-06 is 2026-03-13.' }),
      ),
      turn(use('finish', { summary: 'Merged a duplicate and dated the freeze.' })),
    );
    const { record } = await runDream(options());
    expect(record).toMatchObject({ status: 'completed', method: 'model', fallbackReason: null, tokens: { input: 4000, output: 800 } });
    expect(record!.model).toBe('claude-sonnet-4-6');
    expect(record!.changes.map((c) => `${c.status} ${c.action} ${c.file} ${c.kind}`)).toEqual([
      'applied update MEMORY.md index',
      'applied update feedback_db.md model',
      'applied delete feedback_db_copy.md model',
      'applied update project_freeze.md model',
      'applied create team/MEMORY.md index',
    ]);
    const files = await fx.files();
    expect(files['feedback_db.md']).toBe(MERGED);
    expect(files['project_freeze.md']).toBe(FREEZE);
    expect(Object.keys(files)).toEqual(['MEMORY.md', 'feedback_db.md', 'project_freeze.md', 'team/MEMORY.md', 'team/reference_rota.md', 'user_role.md']);
    // The team memory had no index: Prune gives it one.
    expect(files['team/MEMORY.md']).toBe('- [Rota](reference_rota.md) — On-call rota\n');
    await expect(fs.access(path.join(fx.root, 'home', 'projects', fx.dir, 'outside.md'))).rejects.toThrow();
    // Prune retargeted and re-added: every file indexed, nothing dangling.
    expect(files['MEMORY.md']).toBe(
      '- [Role](user_role.md) — Backend engineer\n- [Real database in tests](feedback_db.md) — Do not mock the database\n- [Freeze](project_freeze.md) — Release freeze starts next Friday\n',
    );
    expect(record!.flags.filter((f) => f.kind === 'refused')).toHaveLength(7);
    expect(record!.flags[0]!.message).toBe("The model's summary: Merged a duplicate and dated the freeze.");
    expect((await listHistory(fx.memoryDir, { dataDir: fx.dataDir }))[0]!.summary).toBe(`dream ${record!.id}`);

    // What the model was sent: the tools, the manifest, the signal; then each tool's answer.
    const first = fake.messageRequests()[0]!.body!;
    expect((first.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'list_memories',
      'read_memory',
      'grep_transcripts',
      'write_memory',
      'delete_memory',
      'finish',
    ]);
    expect(JSON.stringify(first.messages)).toContain('team/reference_rota.md [team, reference]');
    expect(JSON.stringify(first.messages)).toContain('the release freeze starts next Friday');
    expect(toolResults(1)['toolu_2']!.content).toContain('Mocks hid a migration bug.');
    const second = toolResults(2);
    expect(second['toolu_3']!.content).toMatch(/^2026-03-06T12:00:00Z session s-1: Remember: the release freeze starts next Friday\./);
    expect(second['toolu_4']).toEqual({ content: 'Staged: update feedback_db.md.' });
    const third = toolResults(3);
    expect(third['toolu_6']).toMatchObject({ is_error: true, content: expect.stringMatching(/outside the memory directory/) });
    expect(third['toolu_7']).toMatchObject({ is_error: true, content: expect.stringMatching(/absolute paths are not allowed/) });
    expect(third['toolu_8']).toMatchObject({ is_error: true, content: expect.stringMatching(/index.*Prune rebuilds the index/) });
    expect(third['toolu_9']).toMatchObject({ is_error: true, content: expect.stringMatching(/always stays private/) });
    expect(third['toolu_10']).toMatchObject({ is_error: true, content: expect.stringMatching(/would write a secret/) });
    expect(third['toolu_10']!.content).not.toContain('ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5h');
    expect(third['toolu_11']).toMatchObject({ is_error: true, content: expect.stringMatching(/no frontmatter/) });
    expect(third['toolu_12']).toMatchObject({ is_error: true, content: expect.stringMatching(/deletions do not propagate/) });
    expect(third['toolu_13']).toEqual({ content: 'Staged: update project_freeze.md.' });
  });

  it('refuses in words true to the call: content that is not text, and a delete or its merged_into that names no memory (s40)', async () => {
    calls = 0;
    fake.enqueue(
      turn(
        use('write_memory', { file: 'project_new.md', content: 42, reason: 'a number' }),
        use('delete_memory', { file: '../outside.md', reason: 'escape' }),
        use('delete_memory', { file: 'feedback_db_copy.md', reason: 'dup', merged_into: '../outside.md' }),
        use('delete_memory', { file: 'feedback_db_copy.md', reason: 'dup', merged_into: 'docs/feedback_db.md' }),
        use('delete_memory', { file: 'feedback_db_copy.md', reason: 'dup', merged_into: 42 }),
        use('read_memory', { file: '../outside.md' }),
      ),
      turn(use('finish', { summary: 'Nothing done.' })),
    );
    const { record } = await runDream(options());
    const results = toolResults(1);
    expect(results['toolu_1']).toEqual({
      is_error: true,
      content: 'Refused project_new.md: its content is not text (a number); write the whole topic file as text.',
    });
    expect(results['toolu_2']).toMatchObject({ is_error: true, content: expect.stringMatching(/^Refused to delete \.\.\/outside\.md: it resolves outside/) });
    expect(results['toolu_3']).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^Refused to delete feedback_db_copy\.md as merged into \.\.\/outside\.md: it resolves outside/),
    });
    expect(results['toolu_4']).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^Refused to delete feedback_db_copy\.md as merged into docs\/feedback_db\.md: a dream writes only topic files/),
    });
    expect(results['toolu_5']).toEqual({
      is_error: true,
      content:
        'Refused to delete feedback_db_copy.md: merged_into is not text (a number); name the memory it was merged into (feedback_x.md), or leave merged_into out.',
    });
    expect(results['toolu_6']).toMatchObject({ is_error: true, content: expect.stringMatching(/^Refused to read \.\.\/outside\.md: it resolves outside/) });
    for (const r of Object.values(results)) expect(r.content).not.toMatch(/Refused to write|no content/);
    expect(record!.flags.filter((f) => f.kind === 'refused')).toHaveLength(5);
    expect(Object.keys(await fx.files())).toContain('feedback_db_copy.md');
  });

  it('refuses a write to, and a merge into, a name held by a folder: the memory merged is never deleted with its text nowhere (review s43)', async () => {
    calls = 0;
    await fs.mkdir(path.join(fx.memoryDir, 'project_dir.md'));
    fake.enqueue(
      turn(
        use('write_memory', { file: 'project_dir.md', content: FREEZE, reason: 'merge the copy here' }),
        use('delete_memory', { file: 'feedback_db_copy.md', reason: 'merged', merged_into: 'project_dir.md' }),
      ),
      turn(use('finish', { summary: 'Merged.' })),
    );
    const { record } = await runDream(options());
    const results = toolResults(1);
    expect(results['toolu_1']).toMatchObject({ is_error: true, content: 'Refused project_dir.md: it is a folder, not a file, so a dream leaves it alone.' });
    expect(results['toolu_2']).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^Refused to delete feedback_db_copy\.md as merged into project_dir\.md: it is a folder/),
    });
    expect(record!.changes.filter((c) => c.file === 'feedback_db_copy.md')).toEqual([]);
    expect(await fx.files()).toMatchObject({ 'feedback_db_copy.md': DUP.replace('s-1', 's-2') });
    expect((await fs.stat(path.join(fx.memoryDir, 'project_dir.md'))).isDirectory()).toBe(true);
  });

  it('refuses a model that deletes everything: held back for confirmation, nothing written', async () => {
    calls = 0;
    fake.enqueue(
      turn(
        ...['feedback_db.md', 'feedback_db_copy.md', 'project_freeze.md', 'user_role.md'].map((file) => use('delete_memory', { file, reason: 'clean slate' })),
      ),
      turn(use('finish', { summary: 'Deleted everything.' })),
    );
    const files = await fx.files();
    const { record } = await runDream(options());
    expect(record?.status).toBe('needs-confirmation');
    expect(record!.deletions).toEqual({ count: 4, total: 5, limit: 1 });
    expect(await fx.files()).toEqual(files);
    expect(await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).toEqual([]);
  });

  it('stops at its bounds and keeps what was proposed', async () => {
    calls = 0;
    fake.setHandler(() => turn(use('list_memories', {})));
    const { record } = await runDream(options({ settings: { ...defaultAppSettings().dream, maxTurns: 3 } }));
    expect(fake.messageRequests()).toHaveLength(3);
    expect(record!.flags.map((f) => f.message)).toContain('The model loop stopped after 3 model calls (the limit); what it proposed until then is kept.');
    expect(record!.method).toBe('model');
  });

  it('a secret the model read in a memory is masked wherever its words are kept: summary, reasons, refusals, History (s40)', async () => {
    calls = 0;
    // Assembled at run time, so no key-shaped literal sits in the repository.
    const token = ['ghp_', 'R8mK2vQ9', 'xT4pL7nW', '3zY6bC1d', 'F5hJ0sA8', 'eG2u'].join('');
    await fx.write('reference_ci.md', topic({ name: 'CI', description: 'CI token', type: 'reference' }, `The CI token is ${token}`));
    fake.enqueue(
      turn(
        use('write_memory', {
          file: 'user_role.md',
          content: topic({ name: 'Role', description: 'Backend engineer', type: 'user' }, 'Go, Postgres.'),
          reason: `tidied; CI token is ${token}`,
        }),
        use('delete_memory', { file: `${token}.md` }),
      ),
      turn(use('finish', { summary: `Kept the CI token ${token} where it was.` })),
    );
    const { record } = await runDream(options());
    expect(record!.method).toBe('model');
    expect(record!.report).toContain('ghp_');
    const kept = [JSON.stringify(record), ...(await fs.readdir(path.join(fx.dataDir, 'dreams'))).map(String)];
    for (const f of await fs.readdir(path.join(fx.dataDir, 'dreams'))) kept.push(await fs.readFile(path.join(fx.dataDir, 'dreams', f), 'utf8'));
    kept.push(JSON.stringify(await listHistory(fx.memoryDir, { dataDir: fx.dataDir })));
    for (const text of kept) expect(text).not.toContain(token.slice(8));
  });

  it('falls back to the offline rules, saying why, when the model fails', async () => {
    fake.setHandler(() => ({ kind: 'error', status: 500 }));
    const { record } = await runDream(options());
    expect(record).toMatchObject({ status: 'completed', method: 'rules' });
    expect(record!.fallbackReason).toMatch(/HTTP 500/);
    expect(record!.report).toMatch(/The offline rules ran instead of the model: The API failed with HTTP 500/);
    // The rules did the work: the duplicate merged.
    expect(Object.keys(await fx.files())).not.toContain('feedback_db_copy.md');
  });
  describe('a new name that is an existing one in another Unicode form', () => {
    const nfd = 'project_cafe\u0301.md';
    const nfc = 'project_caf\u00e9.md';
    const CAFE = topic({ name: 'Café', description: 'The café by the office', type: 'project' }, 'Opens at 8.');
    const twin = topic({ name: 'Café twin', description: 'Another café memory', type: 'project' }, 'Opens at 9.');

    it('is refused to the model, with the reason in the report, and the memory under the other form is left as it was', async () => {
      calls = 0;
      await fx.write(nfd, CAFE);
      fake.enqueue(turn(use('write_memory', { file: nfc, content: twin, reason: 'a new café memory' })), turn(use('finish', { summary: 'Wrote the café.' })));
      const { record } = await runDream(options());
      expect(toolResults(1)['toolu_1']).toMatchObject({
        is_error: true,
        content: expect.stringContaining('is the same name, written in another Unicode form'),
      });
      expect(record!.flags.filter((f) => f.kind === 'refused').map((f) => f.message)).toEqual([
        expect.stringContaining('is the same name, written in another Unicode form'),
      ]);
      const files = await fx.files();
      expect(Object.keys(files).filter((n) => n.normalize('NFC') === nfc)).toEqual([nfd]);
      expect(files[nfd]).toBe(CAFE);
    });

    it('is refused to the model when its own earlier write in this dream staged the other form, and only that one is written', async () => {
      calls = 0;
      fake.enqueue(
        turn(
          use('write_memory', { file: nfd, content: CAFE, reason: 'the café' }),
          use('write_memory', { file: nfc, content: twin, reason: 'the café again' }),
        ),
        turn(use('finish', { summary: 'Wrote the café twice.' })),
      );
      const { record } = await runDream(options());
      expect(toolResults(1)['toolu_1']).toEqual({ content: `Staged: create ${nfd}.` });
      expect(toolResults(1)['toolu_2']).toMatchObject({
        is_error: true,
        content: `Refused ${nfc}: ${nfc} already exists: "${nfd}" is the same name, written in another Unicode form; to change that memory, write to it by its exact name.`,
      });
      expect(record!.changes.map((c) => [c.file, c.status])).not.toContainEqual([nfc, expect.anything()]);
      const files = await fx.files();
      expect(Object.keys(files).filter((n) => n.normalize('NFC') === nfc)).toEqual([nfd]);
      expect(files[nfd]).toBe(CAFE);
    });

    it('is left alone at apply when the other form was written while the dream ran, and said so', async () => {
      calls = 0;
      // The user's own session writes the other form while the model is still working.
      fake.setHandler(async (_request, i) => {
        if (i === 0) return turn(use('write_memory', { file: nfc, content: twin, reason: 'a new café memory' }));
        await fx.write(nfd, CAFE);
        return turn(use('finish', { summary: 'Wrote the café.' }));
      });
      const { record } = await runDream(options());
      expect(record!.changes.find((c) => c.file === nfc)).toMatchObject({
        status: 'skipped',
        skippedReason: expect.stringContaining('is the same name, written in another Unicode form'),
      });
      const files = await fx.files();
      expect(Object.keys(files).filter((n) => n.normalize('NFC') === nfc)).toEqual([nfd]);
      expect(files[nfd]).toBe(CAFE);
    });
  });
});
