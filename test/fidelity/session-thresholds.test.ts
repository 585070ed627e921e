import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionMemory } from '../../src/main/session/index.js';
import { SESSION_RUN, SESSION_TRANSCRIPT_FIXTURE, expectedSessionCounts } from '../../src/main/session/test-support/claude-code-session-run.js';

// A transcript Claude Code 2.1.332 wrote for a two-turn session offline (live:
// src/main/session/claude-code-interop.test.ts): three Read calls in one response (three lines,
// one message id, the usage repeated on each), then text, then a second turn. Memdir's Session
// Memory must count its context and tool calls as R-SESSION says (Claude Code 2.1.88's counting).
const lines = fs.readFileSync(SESSION_TRANSCRIPT_FIXTURE, 'utf8').split('\n').filter(Boolean);
const sessionId = lines.map((l) => (JSON.parse(l) as { sessionId?: string }).sessionId).find(Boolean)!;

let tmp: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-session-fidelity-')));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function observe(text: string) {
  const home = path.join(tmp, 'config');
  const transcript = path.join(home, 'projects', '-work-checkout', `${sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.writeFileSync(transcript, text);
  return new SessionMemory({ home, dataDir: path.join(tmp, 'data') }).observe(transcript, { write: false });
}

describe("Session Memory's counters on a transcript of Claude Code 2.1.332 (R-SESSION)", () => {
  it('the whole session: the last response is the context, three tool calls, an update due', async () => {
    expect(await observe(`${lines.join('\n')}\n`)).toMatchObject(expectedSessionCounts(2));
  });

  it('up to the end of the first turn: the answer after the tools is the context, the three calls counted once', async () => {
    const end = lines.findIndex((l) => l.includes(SESSION_RUN.afterTools.text));
    expect(end).toBeGreaterThan(0);
    expect(await observe(`${lines.slice(0, end + 1).join('\n')}\n`)).toMatchObject(expectedSessionCounts(1));
  });
});
