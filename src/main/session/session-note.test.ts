import { describe, expect, it } from 'vitest';
import { SESSION_HANDBACK_MAX_CHARS } from '../../shared/limits.js';
import { handBackNote } from './session-note.js';

const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("the note handed back to Claude Code, within the client's 10,000 characters (R-SESSION)", () => {
  it('a note of one very long line keeps its start and its end, and never splits a character', () => {
    for (const shift of ['', 'x']) {
      const note = `${shift}START ${'😀'.repeat(15_000)} END`;
      const handed = handBackNote(note, '/data/session-memory/session-memory-s.md');
      expect(handed.cut).toBe(true);
      expect(handed.wholeChars).toBeGreaterThan(note.length);
      expect(handed.text.length).toBeLessThanOrEqual(SESSION_HANDBACK_MAX_CHARS);
      expect(handed.text).toContain(`${shift}START 😀`);
      expect(handed.text.endsWith('😀 END\n')).toBe(true);
      expect(handed.text).not.toMatch(lone);
      expect(handed.text).toMatch(
        /\[… [\d,]+ characters of the note's middle are left out here, [^\n]* the whole note is in \/data\/session-memory\/session-memory-s\.md …\]/,
      );
    }
  });

  it('whole lines at both ends when the note has lines, the gap counting exactly what was left out', () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => `line ${i}`);
    const handed = handBackNote(lines.join('\n'), 'note.md');
    const kept = handed.text.split('\n').filter((l) => l.startsWith('line '));
    const left = Number(/\[… ([\d,]+) characters/.exec(handed.text)![1]!.replace(/,/g, ''));
    expect(kept.every((l) => lines.includes(l))).toBe(true);
    expect(kept[0]).toBe('line 0');
    expect(kept.at(-1)).toBe('line 1999');
    expect(kept.join('\n').length + left).toBe(lines.join('\n').length);
    expect(handed.text.length).toBeLessThanOrEqual(SESSION_HANDBACK_MAX_CHARS);
    expect(handed.text.length).toBeGreaterThan(SESSION_HANDBACK_MAX_CHARS - 400);
  });
});
