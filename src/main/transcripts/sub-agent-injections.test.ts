/**
 * What a sub-agent was last given of its memory (R-AGENT), read from the sub-agent transcripts on
 * disk as Claude Code 2.1.332 writes them (`<session>/subagents/agent-<id>.jsonl`, its
 * `prompt_snapshot` record: test/fixtures/claude-code-agent/prompt-snapshot.jsonl).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastSubAgentInjections } from './sub-agent-injections.js';

const RECORDED = path.resolve(__dirname, '../../../test/fixtures/claude-code-agent/prompt-snapshot.jsonl');

let root: string;
let folder: string;
let memoryDir: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-injections-')));
  folder = path.join(root, 'claude', 'projects', '-repo');
  memoryDir = path.join(root, 'repo', '.claude', 'agent-memory', 'reviewer');
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

/**
 * A sub-agent transcript of session `sessionId`: given `text` of `dir`'s MEMORY.md at `at` (no
 * memory section when `dir` is null, as for a built-in agent like Explore), last written at `mtime`.
 */
async function subAgent(sessionId: string, agentId: string, dir: string | null, text: string, at: string, mtime: Date): Promise<string> {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const recorded = JSON.parse(await fs.readFile(RECORDED, 'utf8')) as { timestamp: string; attachment: { systemPrompt: string[] } };
  recorded.timestamp = at;
  if (dir === null) recorded.attachment.systemPrompt = ['You are a fast agent that explores code.'];
  const line = JSON.stringify(recorded)
    .replace('$MARKER', '')
    .replace('$MEMORY_DIR', json(dir ?? ''))
    .replace('$INDEX', json(text));
  const file = path.join(folder, sessionId, 'subagents', `agent-${agentId}.jsonl`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `{"type":"user","isSidechain":true,"sessionId":"${sessionId}"}\n${line}\n{"type":"assistant","isSidechain":true}\n`);
  await fs.utimes(file, mtime, mtime);
  return file;
}

const at = (hhmm: string) => `2026-12-06T${hhmm}:00.000Z`;
const time = (hhmm: string) => new Date(at(hhmm));

describe('lastSubAgentInjections', () => {
  it('takes the injection given last, not the transcript written last, when sub-agents overlap', async () => {
    // A got the old index at 10:00 and ran until 10:10; B got the new one at 10:05 and ended at 10:06.
    await subAgent('s1', 'a', memoryDir, '- [Old](old.md) — old', at('10:00'), time('10:10'));
    await subAgent('s2', 'b', memoryDir, '- [New](new.md) — new', at('10:05'), time('10:06'));
    const found = await lastSubAgentInjections([folder], [memoryDir]);
    expect(found.get(memoryDir)).toEqual({ memoryDir, text: '- [New](new.md) — new', at: at('10:05'), sessionId: 's2' });
  });

  it('finds a folder given to a sub-agent before 200 runs of sub-agents without memory', async () => {
    await subAgent('s0', 'r', memoryDir, '- [Rule](rule.md) — a rule', at('08:00'), time('08:01'));
    for (let i = 0; i < 200; i++) {
      const when = new Date(time('09:00').getTime() + i * 1000);
      await subAgent(`s${i + 1}`, `e${i}`, null, '', when.toISOString(), when);
    }
    const found = await lastSubAgentInjections([folder], [memoryDir]);
    expect(found.get(memoryDir)).toMatchObject({ text: '- [Rule](rule.md) — a rule', at: at('08:00'), sessionId: 's0' });
  });

  it('sees a transcript written or changed since the last look, and forgets one deleted', async () => {
    await subAgent('s1', 'a', memoryDir, 'first', at('10:00'), time('10:01'));
    expect((await lastSubAgentInjections([folder], [memoryDir])).get(memoryDir)?.text).toBe('first');
    // A newer sub-agent.
    const second = await subAgent('s2', 'b', memoryDir, 'second', at('10:05'), time('10:06'));
    expect((await lastSubAgentInjections([folder], [memoryDir])).get(memoryDir)?.text).toBe('second');
    // The same file rewritten: a transcript whose snapshot was not written yet when first read, say.
    await subAgent('s2', 'b', memoryDir, 'second, rewritten', at('10:07'), time('10:08'));
    expect((await lastSubAgentInjections([folder], [memoryDir])).get(memoryDir)).toMatchObject({ text: 'second, rewritten', at: at('10:07') });
    await fs.rm(second);
    expect((await lastSubAgentInjections([folder], [memoryDir])).get(memoryDir)?.text).toBe('first');
  });

  it('stops reading once no older transcript can hold a later injection, and is still right', async () => {
    // The newest injection is found first; an older transcript last written before it was given cannot beat it.
    await subAgent('s1', 'a', memoryDir, 'old', at('09:00'), time('09:30'));
    await subAgent('s2', 'b', memoryDir, 'new', at('10:00'), time('10:30'));
    const other = path.join(root, 'claude', 'agent-memory', 'helper');
    await subAgent('s3', 'c', other, 'helper', at('08:00'), time('08:30'));
    const found = await lastSubAgentInjections([folder], [memoryDir, other]);
    expect(found.get(memoryDir)?.text).toBe('new');
    expect(found.get(other)?.text).toBe('helper');
  });
});
