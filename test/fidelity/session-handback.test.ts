import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SESSION_HANDBACK_MAX_CHARS } from '../../src/shared/limits.js';
import { handBackNote } from '../../src/main/session/session-note.js';
import { HOOK_CONTEXT_CASES, HOOK_CONTEXT_FIXTURE, type HookContextCase, hookContextText } from '../../src/main/hooks/test-support/hook-context-cases.js';

// What Claude Code 2.1.332 did with a SessionStart hook's additionalContext of each size (live:
// src/main/hooks/claude-code-interop.test.ts): whole up to 10,000 UTF-16 units, whatever the
// bytes or code points and with nothing trimmed; past that, a file and a 2 KB preview. The note
// Memdir hands back must fit, so the agent gets it whole (R-SESSION).
const recorded = JSON.parse(fs.readFileSync(HOOK_CONTEXT_FIXTURE, 'utf8')) as { client: string; cases: HookContextCase[] };

describe("the Session Memory note handed back within Claude Code 2.1.332's limit for a hook's context (R-SESSION)", () => {
  it('the recording is of the cases the live test runs, from the pinned client', () => {
    expect(recorded.client).toBe('2.1.332');
    expect(recorded.cases.map((c) => c.name)).toEqual(HOOK_CONTEXT_CASES.map((c) => c.name));
    for (const c of recorded.cases) expect(c.chars).toBe(hookContextText(c).length);
  });

  it("the limit is the client's: whole exactly when the text has at most SESSION_HANDBACK_MAX_CHARS UTF-16 units", () => {
    for (const c of recorded.cases) {
      expect(c.whole, c.name).toBe(c.chars <= SESSION_HANDBACK_MAX_CHARS);
      expect(c.preview, c.name).toBe(!c.whole);
    }
    // Both sides of the limit were seen, in units that are not bytes nor code points.
    expect(recorded.cases.some((c) => c.whole && c.chars === SESSION_HANDBACK_MAX_CHARS && c.utf8Bytes > SESSION_HANDBACK_MAX_CHARS)).toBe(true);
    expect(recorded.cases.some((c) => !c.whole && c.chars === SESSION_HANDBACK_MAX_CHARS + 1 && c.codePoints <= SESSION_HANDBACK_MAX_CHARS)).toBe(true);
  });

  it('what Memdir hands back never goes past it, whatever the note', () => {
    for (const c of HOOK_CONTEXT_CASES) {
      const note = hookContextText({ ...c, count: c.count * 3 });
      expect(handBackNote(note, '/data/session-memory/session-memory-s.md').text.length, c.name).toBeLessThanOrEqual(SESSION_HANDBACK_MAX_CHARS);
    }
  });
});
