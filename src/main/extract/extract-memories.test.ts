// What one extraction run does with a session's new turns: writes what the model proposes through history (apply mode),
// skips the turns the agent saved memory in itself (R-EXCLUSIVE), obeys the settings (R-SETTINGS) and its options.
// What the model proposes is vetted in extract-proposals.test.ts; crashes, races and bad input in extract-faults.test.ts.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { CursorStore } from '../transcripts/cursor-store.js';
import { TranscriptBuilder } from '../transcripts/test-support/transcript-builder.js';
import { testingMemory, useExtractHarness } from './test-support/extract-harness.js';
import { operationsReply, sentPrompts } from './test-support/extract-fixture.js';

const h = useExtractHarness();
const { run, memory, exists, indexFiles, historyOf, store, writeTurns } = h;

describe('extractTranscript in apply mode', () => {
  it('writes the memory and its pointer through history as `extract`, logs it, and moves the cursor', async () => {
    h.fake.enqueue(operationsReply(testingMemory));
    await writeTurns('Stop mocking the database in integration tests, we got burned by that.');
    const result = await run();
    expect(result.outcomes).toEqual([
      expect.objectContaining({ skipped: false, method: 'model', turns: 1, operations: [expect.objectContaining({ disposition: 'applied' })] }),
    ]);
    expect(result.wrote).toBe(true);
    expect(await memory('feedback_real_db.md')).toContain('originSessionId: session-1');
    expect(await indexFiles()).toEqual(['feedback_sql.md', 'feedback_real_db.md']);
    const history = await historyOf();
    expect(history[0]).toMatchObject({ source: 'extract', summary: 'Extract from session session-: create feedback_real_db.md' });
    // The prompt carried the turn, the index and the rules.
    const prompt = sentPrompts(h.fake)[0]!;
    expect(prompt).toContain('Stop mocking the database');
    expect(prompt).toContain('feedback_sql.md');
    expect(JSON.stringify(h.fake.messageRequests()[0]!.body?.system)).toContain('Never save');
    const log = await store().readLog();
    expect(log).toEqual([expect.objectContaining({ kind: 'turns', trigger: 'test', mode: 'apply' })]);
    // Nothing new: no model call, no entry.
    const again = await run();
    expect(again.outcomes).toEqual([]);
    expect(h.fake.messageRequests()).toHaveLength(1);
  });

  it('applies one request per span of turns, and only the new turns next time', async () => {
    await writeTurns('first', 'second');
    await run();
    await writeTurns('third');
    await run();
    const prompts = sentPrompts(h.fake);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain('second');
    expect(prompts[1]).toContain('third');
    expect(prompts[1]).not.toContain('second');
  });

  it('queues an operation with an R-NOTSAVE hint for review instead of writing it', async () => {
    const paths = Array.from({ length: 5 }, (_, i) => `- src/module${i}/file${i}.ts`).join('\n');
    h.fake.enqueue(
      operationsReply({ ...testingMemory, file: 'project_layout.md', type: 'project', name: 'Layout', description: 'Where things are', body: `${paths}\n` }),
    );
    await writeTurns('remember where the modules are');
    const result = await run();
    expect(result.outcomes[0]!.operations[0]).toMatchObject({
      disposition: 'queued',
      reason: expect.stringContaining('Needs a look'),
      warnings: [expect.stringContaining('file paths')],
    });
    expect(await exists('project_layout.md')).toBe(false);
    expect(await store().listProposals()).toHaveLength(1);
  });
});

describe('R-EXCLUSIVE: the agent wrote into the memory directory itself', () => {
  it('skips exactly the turns where Write, Edit, MultiEdit or NotebookEdit touched the memory dir', async () => {
    const t = h.fx.builder();
    t.prompt('a plain turn').assistant('ok', { stopReason: 'end_turn' });
    const writes: [string, Record<string, unknown>][] = [
      ['Write', { file_path: path.join(h.fx.memoryDir, 'feedback_new.md'), content: 'x' }],
      ['Edit', { file_path: path.relative(h.fx.cwd, path.join(h.fx.memoryDir, 'MEMORY.md')), old_string: 'a', new_string: 'b' }],
      ['MultiEdit', { file_path: path.join(h.fx.memoryDir, 'team', 'project_x.md'), edits: [] }],
      ['NotebookEdit', { notebook_path: path.join(h.fx.memoryDir, 'n.ipynb'), new_source: '' }],
    ];
    writes.forEach(([name, input], i) => {
      t.prompt(`remember this ${i}`)
        .assistant([{ type: 'tool_use', id: `w${i}`, name, input }])
        .toolResult(`w${i}`, 'ok')
        .assistant('saved', { stopReason: 'end_turn' });
    });
    // A write elsewhere does not count.
    t.prompt('edit the code')
      .assistant([{ type: 'tool_use', id: 'c1', name: 'Write', input: { file_path: path.join(h.fx.cwd, 'memory.ts'), content: '' } }])
      .toolResult('c1', 'ok')
      .assistant('done', { stopReason: 'end_turn' });
    await fs.writeFile(h.fx.transcript(), t.take());
    const result = await run();
    expect(result.outcomes.map((o) => (o.skipped ? o.reason : 'extracted'))).toEqual([
      'extracted',
      'memory-written-by-agent',
      'memory-written-by-agent',
      'memory-written-by-agent',
      'memory-written-by-agent',
      'extracted',
    ]);
    expect(result.outcomes[1]!.message).toContain('feedback_new.md');
    expect(result.outcomes[2]!.message).toContain('MEMORY.md');
    expect(sentPrompts(h.fake)).toHaveLength(2);
    expect(sentPrompts(h.fake).join()).not.toContain('remember this');
    const log = await store().readLog();
    expect(log.filter((e) => e.kind === 'turns' && e.outcome.reason === 'memory-written-by-agent')).toHaveLength(4);
  });

  it('resolves a symlinked memory directory before comparing', async () => {
    const alias = path.join(h.fx.root, 'alias');
    await fs.symlink(h.fx.projectDir, alias);
    const t = h.fx.builder();
    t.prompt('save it')
      .assistant([{ type: 'tool_use', id: 'w', name: 'Write', input: { file_path: path.join(alias, 'memory', 'x.md'), content: '' } }])
      .toolResult('w', 'ok')
      .assistant('ok', { stopReason: 'end_turn' });
    await fs.writeFile(h.fx.transcript(), t.take());
    expect((await run()).outcomes[0]).toMatchObject({ skipped: true, reason: 'memory-written-by-agent' });
  });
});

describe('R-SETTINGS', () => {
  it('writes a session launched in a subdirectory into the repository memory Claude Code reads, never into the subdirectory folder (R-LAYOUT)', async () => {
    await fs.mkdir(path.join(h.fx.cwd, '.git'));
    const sub = path.join(h.fx.cwd, 'packages', 'api');
    await fs.mkdir(sub, { recursive: true });
    const subFolder = path.join(h.fx.home, 'projects', sanitizeDirName(sub));
    await fs.mkdir(subFolder, { recursive: true });
    const transcriptPath = path.join(subFolder, 'session-sub.jsonl');
    await fs.writeFile(
      transcriptPath,
      new TranscriptBuilder({ sessionId: 'session-sub', cwd: sub, uuidPrefix: 'sub' })
        .prompt('Stop mocking the database')
        .assistant('Done', { stopReason: 'end_turn' })
        .take(),
    );
    h.fake.enqueue(operationsReply(testingMemory));
    const result = await run({ transcriptPath });
    expect(result.memoryDir).toBe(h.fx.memoryDir);
    expect(await exists('feedback_real_db.md')).toBe(true);
    expect(
      await fs.stat(path.join(subFolder, 'memory')).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });

  it('writes nothing and calls no model when autoMemoryEnabled is false, and records why', async () => {
    await fs.writeFile(path.join(h.fx.home, 'settings.json'), '{"autoMemoryEnabled": false}');
    await writeTurns('remember: always use pnpm');
    const result = await run();
    expect(result.outcomes).toEqual([
      expect.objectContaining({ skipped: true, reason: 'auto-memory-off', message: expect.stringContaining(path.join(h.fx.home, 'settings.json')) }),
    ]);
    expect(h.fake.messageRequests()).toHaveLength(0);
  });

  it("honours CLAUDE_CODE_DISABLE_AUTO_MEMORY and Memdir's own switch", async () => {
    await writeTurns('one');
    expect((await run({ env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' } })).outcomes[0]).toMatchObject({
      reason: 'auto-memory-off',
      message: expect.stringContaining('CLAUDE_CODE_DISABLE_AUTO_MEMORY'),
    });
    await writeTurns('two');
    expect((await run({ enabled: false })).outcomes[0]).toMatchObject({ reason: 'extraction-disabled' });
    expect(h.fake.messageRequests()).toHaveLength(0);
  });
});

describe('options', () => {
  it('--dry-run decides and reports but writes nothing and moves no cursor', async () => {
    h.fake.setHandler(() => operationsReply(testingMemory));
    await writeTurns('one');
    const dry = await run({ dryRun: true });
    expect(dry.outcomes[0]!.operations[0]!.disposition).toBe('dry-run');
    expect(await exists('feedback_real_db.md')).toBe(false);
    expect(await store().readLog()).toEqual([]);
    expect(await new CursorStore(h.fx.dataDir).list()).toEqual([]);
    const real = await run();
    expect(real.outcomes[0]!.operations[0]!.disposition).toBe('applied');
  });

  it('an automatic run on a session seen for the first time takes only its latest turn', async () => {
    await writeTurns('old 1', 'old 2', 'new');
    const result = await run({ firstSeen: 'latest' });
    expect(result.outcomes.map((o) => [o.skipped, o.reason, o.turns])).toEqual([
      [true, 'before-watching', 2],
      [false, null, 1],
    ]);
    expect(sentPrompts(h.fake)[0]).not.toContain('old 1');
  });

  it('counts "the latest turns" from the end of a long transcript, across reads', async () => {
    await writeTurns(...Array.from({ length: 25 }, (_, i) => `old prompt ${i + 1}`), 'new A', 'new B');
    const result = await run({ firstSeen: 3, maxTurnsPerRead: 10 });
    expect(result.outcomes.filter((o) => o.reason === 'before-watching').reduce((n, o) => n + o.turns, 0)).toBe(24);
    const sent = sentPrompts(h.fake).join('\n');
    for (const p of ['old prompt 25', 'new A', 'new B']) expect(sent).toContain(p);
    expect(sent).not.toContain('old prompt 24');
    // Once a cursor exists, every new turn counts again.
    await writeTurns('later 1', 'later 2');
    await run({ firstSeen: 'latest' });
    expect(sentPrompts(h.fake).at(-1)).toContain('later 1');
  });

  it('closes a trailing turn with no stop reason only when told the turn ended', async () => {
    const t = h.fx.builder();
    t.prompt('streaming turn').assistant('answer still has stop_reason null');
    await fs.writeFile(h.fx.transcript(), t.take());
    expect((await run()).outcomes).toEqual([]);
    expect((await run({ closeTrailingTurn: 'if-answered' })).outcomes).toHaveLength(1);
  });

  it('skips turns with no prompt from the user', async () => {
    const t = h.fx.builder();
    t.toolResult('orphan', 'result of a resumed session').assistant('continuing', { stopReason: 'end_turn' });
    await fs.writeFile(h.fx.transcript(), t.take());
    expect((await run()).outcomes[0]).toMatchObject({ skipped: true, reason: 'no-prompt' });
  });
});

describe('the shared fixtures (claude-code-log transcripts)', () => {
  const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/transcripts/claude-code-log');
  for (const name of ['representative_messages', 'edge_cases', 'session_b', 'todowrite_examples']) {
    it(`${name}: every prompt reaches the model once, nothing is written for an empty answer`, async () => {
      const text = await fs.readFile(path.join(FIXTURES, `${name}.jsonl`), 'utf8');
      await fs.writeFile(h.fx.transcript(), text);
      const result = await run({ closeTrailingTurn: 'always' });
      expect(result.readOutcome).toBe('ok');
      expect(result.wrote).toBe(false);
      const extracted = result.outcomes.filter((o) => !o.skipped);
      expect(extracted.every((o) => o.method === 'model' && o.message === 'Nothing worth remembering.')).toBe(true);
      const sent = sentPrompts(h.fake).join('\n');
      // A last line without its newline is held by the reader (it may still be being written).
      const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
      for (const line of complete.split('\n').filter(Boolean)) {
        const record = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
        const content = record.message?.content;
        const prompt = typeof content === 'string' ? content : Array.isArray(content) && content[0]?.type === 'text' ? (content[0].text as string) : null;
        if (record.type === 'user' && prompt && !prompt.startsWith('<') && !prompt.startsWith('Caveat'))
          expect(sent).toContain(JSON.stringify(prompt.slice(0, 30)).slice(1, -1));
      }
      const requests = h.fake.messageRequests().length;
      expect((await run({ closeTrailingTurn: 'always' })).outcomes).toEqual([]);
      expect(h.fake.messageRequests()).toHaveLength(requests);
    });
  }
});
