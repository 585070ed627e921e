/**
 * R-INDEX, live: after Memdir saves a memory in a folder with memories but no MEMORY.md, the real
 * Claude Code's next session (`claude -p` against the loopback fake Messages API, in a temporary
 * home) loads an index that lists every memory — the one Memdir wrote (what Claude Code would have
 * built, then the new pointer), kept as written. Skipped with the reason where the pinned binary is not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../src/main/llm/test-support/fake-anthropic.js';
import { REAL_CLAUDE_CODE, runClaudeCode } from '../../src/main/llm/test-support/real-claude-code.js';
import { createMemory } from '../../src/main/memdir/index.js';
import { readInjectedIndex } from '../../src/main/transcripts/agent-index.js';

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;

describe.skipIf(skip !== null)(`the real Claude Code loads every memory after Memdir creates MEMORY.md${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ fallback: { kind: 'message', text: 'ok' } });
  });
  afterAll(() => fake?.close());

  it('a memory saved where there was no MEMORY.md: the next session loads the others and the new one', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-seed-')));
    try {
      const [scratch, config, project] = ['scratch', 'config', 'project'].map((d) => path.join(root, d)) as [string, string, string];
      for (const d of [scratch, config, project]) fs.mkdirSync(d, { recursive: true });
      const folder = path.join(config, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
      const memoryDir = path.join(folder, 'memory');
      fs.mkdirSync(path.join(memoryDir, 'notes'), { recursive: true });
      const others = ['feedback_sql.md', 'deploy.md', 'notes/oncall.md'];
      others.forEach((file, i) => {
        fs.writeFileSync(path.join(memoryDir, file), `---\nname: ${file}\ndescription: about ${file}\ntype: project\n---\nBody.\n`);
        fs.utimesSync(path.join(memoryDir, file), 1_767_225_600 + i * 60, 1_767_225_600 + i * 60);
      });
      await createMemory(
        { memoryDir, scope: 'private', dataDir: path.join(root, 'data') },
        { fields: { name: 'Friday freeze', description: 'no deploys on Fridays', type: 'project' }, body: 'Because.\n' },
      );
      const written = fs.readFileSync(path.join(memoryDir, 'MEMORY.md'), 'utf8');
      const run = await runClaudeCode(['-p', 'hello'], { cwd: project, configDir: config, scratch, baseUrl: fake.url });
      expect(run.code, run.stderr).toBe(0);
      // Claude Code kept the file Memdir wrote (no build over it) and loaded it whole.
      expect(fs.readFileSync(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(written);
      const transcript = fs.readdirSync(folder).find((f) => f.endsWith('.jsonl'))!;
      const injected = (await readInjectedIndex(path.join(folder, transcript)))!;
      for (const file of [...others, 'project_friday_freeze.md']) expect(injected).toContain(`](${file})`);
      expect(injected).toBe(written.trimEnd());
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 90_000);
});
