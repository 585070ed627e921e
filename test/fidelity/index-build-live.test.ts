/**
 * The real Claude Code builds MEMORY.md when a memory folder has none (`claude -p` against the
 * loopback fake Messages API, in a temporary home): what it wrote and what its transcript recorded
 * as injected must equal the recording (test/fixtures/claude-code-index/observed-built.json) and
 * Memdir's prediction. Runs where the pinned binary is, skipped with the reason otherwise.
 * `MEMDIR_RECORD_INDEX_FIXTURES=1` rewrites the recording from what the client did.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../src/main/llm/test-support/fake-anthropic.js';
import { PINNED_CLAUDE_CODE, REAL_CLAUDE_CODE, runClaudeCode } from '../../src/main/llm/test-support/real-claude-code.js';
import { predictBuiltIndex, readEffectiveSettings, ScanCache, scanMemoryDir } from '../../src/main/memdir/index.js';
import { agentIndexView, readInjectedIndex } from '../../src/main/transcripts/agent-index.js';
import { BUILT_CASE_FIXTURE, type BuiltCase, type BuiltFixture, caseInputs, layOut, memoryOffIn, writeCaseSettings } from './index-build-case.js';

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
const record = process.env.MEMDIR_RECORD_INDEX_FIXTURES === '1';
const inputs = caseInputs();

describe.skipIf(skip !== null)(`the real Claude Code builds the MEMORY.md Memdir predicts${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  const observed: Record<string, BuiltCase> = {};
  beforeAll(async () => {
    fake = await startFakeAnthropic({ fallback: { kind: 'message', text: 'ok' } });
  });
  afterAll(async () => {
    await fake?.close();
    if (record && Object.keys(observed).length === Object.keys(inputs).length) {
      const fixture: BuiltFixture = {
        claudeCode: PINNED_CLAUDE_CODE,
        how: 'test/fidelity/index-build-live.test.ts (MEMDIR_RECORD_INDEX_FIXTURES=1): each case laid out in a new memory folder with no MEMORY.md (but empty-index, blank-index), its settings files written (memory-off-user: settings.json in the config dir; -project, -local: .claude/settings.json, settings.local.json in the launch directory), `claude -p hello` run once against the fake API; `written` is MEMORY.md after the run, `injected` the AutoMem text its transcript recorded.',
        cases: observed,
      };
      fs.writeFileSync(BUILT_CASE_FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
    }
  });

  it.each(Object.keys(inputs))(
    '%s',
    async (name) => {
      const input = inputs[name]!;
      const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-built-')));
      try {
        const [scratch, config, project] = ['scratch', 'config', 'project'].map((d) => path.join(root, d)) as [string, string, string];
        for (const d of [scratch, config, project]) fs.mkdirSync(d, { recursive: true });
        const folder = path.join(config, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
        const memoryDir = path.join(folder, 'memory');
        fs.mkdirSync(memoryDir, { recursive: true });
        layOut(memoryDir, input.files);
        writeCaseSettings(input, config, project);
        const off = memoryOffIn(input);
        const predicted = off ? null : predictBuiltIndex(memoryDir);
        // The app's path (index.loaded): from the memories a scan found, the built file byte for byte.
        const memories = scanMemoryDir(memoryDir, { scope: 'private', cache: new ScanCache() }).memories;
        const fromScan = off ? null : predictBuiltIndex(memoryDir, { memories });
        // What index.loaded and `memdir show --loaded` say, with the settings Memdir reads where the client ran.
        const settings = await readEffectiveSettings(config, { launchDir: project, canonicalRoot: project }, input.env ?? {});
        const view = await agentIndexView({ transcriptDirs: [], memoryDir, settings, memories });
        const run = await runClaudeCode(['-p', 'hello'], {
          cwd: project,
          configDir: config,
          scratch,
          baseUrl: fake.url,
          ...(input.env ? { env: input.env } : {}),
        });
        expect(run.code, run.stderr).toBe(0);
        const index = path.join(memoryDir, 'MEMORY.md');
        const written = fs.existsSync(index) ? fs.readFileSync(index, 'utf8') : null;
        const transcript = fs.readdirSync(folder).find((f) => f.endsWith('.jsonl'));
        const injected = transcript ? await readInjectedIndex(path.join(folder, transcript)) : null;
        observed[name] = { ...input, written, injected };
        if (!record) {
          const recorded = (JSON.parse(fs.readFileSync(BUILT_CASE_FIXTURE, 'utf8')) as BuiltFixture).cases[name]!;
          expect({ written, injected }).toEqual({ written: recorded.written, injected: recorded.injected });
        }
        // Memdir predicted, before the run, what the client wrote (nothing where a MEMORY.md was there, or memory is off).
        const before = input.files['MEMORY.md'];
        expect(predicted?.text ?? null).toBe(before || off ? null : written);
        expect(fromScan?.text ?? null).toBe(predicted?.text ?? null);
        // The file an edit of the missing index starts from: the one the client wrote, none where it wrote none.
        expect(view.builtFile).toBe(before ? null : written);
        expect(view.autoMemoryOff !== null).toBe(off);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
