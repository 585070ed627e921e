// R-EXTRACT in Claude Code's memory-store mode (CLAUDE_MEMORY_STORES set): Memdir's extraction
// held to what the real client 2.1.332 tells its own extraction agent and does with its writes
// (test/fixtures/claude-code-extract/observed-stores-2.1.332.json, recorded live by
// claude-code-interop.test.ts 'stores'): no MEMORY.md in the prompt, no pointer asked for or
// written, and a 4KB rule for each memory file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildExtractPrompt, extractSystemPrompt } from './extract-prompt.js';
import { acceptProposal } from './review-queue.js';
import { type StoresExtractRecording, STORES_EXTRACT_FIXTURE } from './test-support/claude-code-extract-cases.js';
import { testingMemory, useExtractHarness } from './test-support/extract-harness.js';
import { operationsReply } from './test-support/extract-fixture.js';
import { validateOperation } from './validate-operation.js';

const recording = JSON.parse(await fs.readFile(STORES_EXTRACT_FIXTURE, 'utf8')) as StoresExtractRecording;
const runs = Object.values(recording.runs);
/** The client's sentence on a memory file's size, as its Memory section says it in store mode. */
const sizeRule = /Keep each memory file under 4KB[^\n]*?second file\./.exec(runs[0]!.memorySection)?.[0];
const STORES = { CLAUDE_MEMORY_STORES: recording.settings.userAndTeam! };
const h = useExtractHarness();

describe('what the client does in store mode (the recording)', () => {
  it('tells its agent of no MEMORY.md and no pointer, gives a 4KB rule, and adds no pointer itself', () => {
    for (const run of runs) {
      expect(run.memorySection).not.toContain('MEMORY.md');
      expect(run.instruction).not.toContain('MEMORY.md');
      expect(run.memorySection).toContain(sizeRule);
      // MEMORY.md holds the seed and the agent's own edit only; the files it wrote are there, the one over 4KB too.
      expect(run.files['MEMORY.md']).toBe('- [Build](build.md) — how the project builds\n- [Private](private-note.md) — private\n');
      expect(run.writes.toolu_big!.isError).toBe(false);
    }
  });
});

describe("Memdir's extraction in store mode, as the client's", () => {
  it("tells its model no index loads and the client's 4KB rule in its words, and shows it no MEMORY.md", () => {
    expect(sizeRule).toBeDefined();
    const system = extractSystemPrompt({ storeMode: true });
    expect(system).toContain(sizeRule);
    expect(system).not.toContain('pointer in the index MEMORY.md');
    expect(extractSystemPrompt({ storeMode: false })).not.toContain(sizeRule);
    const prompt = buildExtractPrompt([], { indexText: null, memories: [], teamMemories: [] });
    expect(prompt).not.toContain('<memory_index>');
    expect(prompt).not.toContain('MEMORY.md');
  });

  it("warns of no MEMORY.md limit, and of a file over 4KB in the client's words", async () => {
    const target = { privateFiles: new Set<string>(), teamFiles: new Set<string>(), indexText: null };
    const fits = await validateOperation({ ...testingMemory }, target);
    expect(fits.ok && fits.warnings).toEqual([]);
    const big = await validateOperation({ ...testingMemory, body: `${'A long story. '.repeat(300)}\n` }, target);
    expect(big.ok && big.warnings).toEqual([
      'feedback_real_db.md would be 4,350 bytes: Claude Code asks in memory-store mode to keep each memory file under 4KB including frontmatter (recall shows only the first 4KB). Split or summarize it.',
    ]);
  });

  it('applies a memory without a pointer in MEMORY.md, and a proposal accepted later gets none either', async () => {
    const before = await h.memory('MEMORY.md');
    h.fake.enqueue(operationsReply({ ...testingMemory }));
    await h.writeTurns('Remember that integration tests hit a real Postgres');
    const applied = await h.run({ env: STORES });
    expect(applied.outcomes[0]!.operations.map((o) => o.disposition)).toEqual(['applied']);
    expect(await h.exists('feedback_real_db.md')).toBe(true);
    expect(await h.memory('MEMORY.md')).toBe(before);
    const sent = JSON.stringify(h.fake.messageRequests().at(-1)!.body);
    expect(sent).toContain(JSON.stringify(sizeRule).slice(1, -1));
    expect(sent).not.toContain('<memory_index>');

    h.fake.enqueue(operationsReply({ ...testingMemory, file: 'feedback_tabs.md', name: 'Tabs', description: 'tabs, not spaces' }));
    await h.writeTurns('We indent with tabs, not spaces');
    const queued = await h.run({ env: STORES, mode: 'review' });
    const id = queued.outcomes[0]!.operations[0]!.proposalId!;
    await acceptProposal(h.fx.dataDir, id, undefined, { memoryStores: { value: STORES.CLAUDE_MEMORY_STORES, from: 'CLAUDE_MEMORY_STORES' } });
    expect(await fs.readFile(path.join(h.fx.memoryDir, 'feedback_tabs.md'), 'utf8')).toContain('tabs, not spaces');
    expect(await h.memory('MEMORY.md')).toBe(before);
  });
});
