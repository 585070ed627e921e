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
