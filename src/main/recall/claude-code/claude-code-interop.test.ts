/**
 * The real Claude Code, when the pinned release is installed: it runs the recall scenario, and
 * what it sends its selector and then loads must match both the committed capture and Memdir's
 * Claude Code mode on the same memory directory. Skipped, with the reason, without the binary.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { RecallService } from '../recall-service.js';
import { SCENARIO_QUERIES } from '../test-support/claude-code-recall-scenario.js';
import { findClaudeCodeBinary } from '../../llm/test-support/real-claude-code.js';
import { CAPTURE_FIXTURE, captureClaudeCodeRecall, withoutClaudeCodeOwnParts } from '../test-support/capture-claude-code-recall.js';
import { LOADED_FILES, SYNC_STORES } from '../../team/test-support/claude-code-stores-cases.js';

/**
 * What the selector is offered in Claude Code's memory-store mode and without it, on one memory
 * dir (the recall scenario, plus the store-folder layout of the stores' loading runs). Recorded,
 * not yet modelled by Memdir's recall (scan-memories.ts holds the rule without stores).
 */
const STORES_RECALL_FIXTURE = path.join('test', 'fixtures', 'claude-code', 'recall-stores-2.1.332.json');
const STORES_RECALL_HOW =
  "src/main/recall/claude-code/claude-code-interop.test.ts ('memory-store mode'): captureClaudeCodeRecall on the recall scenario with `files` written beside it, one prompt (`query`), once with `CLAUDE_MEMORY_STORES` = `stores` (offline: never synced) and once without. Per run: the selector's 'Available memories' lines (without their '- '), sorted (files written in one clock tick tie on time, so the client's newest-first order varies), the time of a file written by the run made <time>. Seen: with the setting the selector is also offered every MEMORY.md but the memory dir's own, the files of the setting's store folders (team/<mount>/…, not other team/ subfolders), and for a file with no description a line of its text ('# ' dropped); the 200 newest still.";

const binary = await findClaudeCodeBinary();

describe.skipIf(!binary.found)(`recall against the real Claude Code${binary.found ? ` ${binary.version}` : ` (skipped: ${binary.reason})`}`, () => {
  let root: string;
  let captured: Awaited<ReturnType<typeof captureClaudeCodeRecall>>;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-interop-'));
    captured = await captureClaudeCodeRecall({ binary: binary.found ? binary.path : '', root: path.join(root, 'claude') });
  }, 180_000);
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('sends what the committed capture holds', async () => {
    const fixture = JSON.parse(await fs.readFile(CAPTURE_FIXTURE, 'utf8')) as {
      runs: { name: string; requests: Record<string, unknown>[]; loaded: string[][] }[];
    };
    const run = fixture.runs.find((r) => r.name === 'default-model')!;
    expect(captured.requests.map(withoutClaudeCodeOwnParts)).toEqual(run.requests.map(withoutClaudeCodeOwnParts));
    expect(captured.loaded).toEqual(run.loaded);
  });

  it('memory-store mode: what the selector is offered, with the setting and without (recorded)', async () => {
    const query = 'how do we deploy the build';
    const manifest = async (name: string, env: NodeJS.ProcessEnv) => {
      const run = await captureClaudeCodeRecall({
        binary: binary.found ? binary.path : '',
        root: path.join(root, name),
        queries: [{ query, answer: '{"selected_memories":[]}' }],
        env,
        files: LOADED_FILES,
      });
      const first = (run.requests[0]?.messages as { content: { text: string }[] }[])[0]!.content[0]!.text;
      return first
        .replace(/^Available memories:\n- /, '')
        .replace(/\(20\d\d-\d\d-\d\dT[\d:.]+Z\)/g, (t) => (t.startsWith('(2026-01-01') ? t : '(<time>)'))
        .split('\n- ')
        .sort();
    };
    const seen = {
      client: binary.found ? binary.version : null,
      how: STORES_RECALL_HOW,
      stores: SYNC_STORES,
      files: LOADED_FILES,
      query,
      withoutStores: await manifest('recall-without', {}),
      withStores: await manifest('recall-with', { CLAUDE_MEMORY_STORES: SYNC_STORES }),
    };
    if (process.env.MEMDIR_RECORD_STORES_FIXTURE === '1') await fs.writeFile(STORES_RECALL_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(await fs.readFile(STORES_RECALL_FIXTURE, 'utf8')));
  }, 240_000);

  it('agrees with Memdir on the same memory directory: same requests, same memories loaded', async () => {
    const fake = await startFakeAnthropic();
    try {
      let answers = 0;
      fake.setHandler(() => ({ kind: 'message', text: SCENARIO_QUERIES[answers++]!.answer }));
      const dataDir = path.join(root, 'data');
      await fs.mkdir(dataDir, { recursive: true });
      await fs.writeFile(
        path.join(dataDir, 'settings.json'),
        JSON.stringify({ model: { maxRetries: 0, models: { recall: String(captured.requests[0]!.model) } } }),
      );
      // Claude Code's own home, read in place: the memory dir it just used.
      const home = path.dirname(path.dirname(path.dirname(captured.memoryDir)));
      const service = new RecallService({
        home,
        dataDir,
        env: { PATH: path.join(root, 'no-bin'), ANTHROPIC_API_KEY: 'sk-ant-api03-memdir-test-key', ANTHROPIC_BASE_URL: fake.url },
      });
      let session: string | null = null;
      const loaded: string[][] = [];
      for (const { query } of SCENARIO_QUERIES) {
        const result = await service.claudeCode({ project: path.basename(path.dirname(captured.memoryDir)), query, session });
        session = result.session.id;
        loaded.push(result.selected.map((s) => s.file));
      }
      expect(fake.messageRequests().map((r) => r.body)).toEqual(captured.requests.map(withoutClaudeCodeOwnParts));
      expect(loaded).toEqual(captured.loaded);
    } finally {
      await fake.close();
    }
  });
});
