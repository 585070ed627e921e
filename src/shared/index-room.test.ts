import { describe, expect, it } from 'vitest';
import { applyRoom, previewRoom, shortenHook } from './index-room.js';

const pointers = (n: number, hook = (i: number) => `feed ${i} arrives hourly`) =>
  Array.from({ length: n }, (_, i) => `- [Source ${i}](source_${i}.md) — ${hook(i)}`).join('\n') + '\n';

describe('applyRoom', () => {
  it('drops, shortens and merges pointers, leaving every other line as it was', () => {
    const text = '# Index\n- [A](a.md) — a very long hook that says far too much about a\n- [B](b.md) — b\n* [C](c.md): c\n- [D](d.md) — d\n';
    const room = applyRoom(text, [
      { kind: 'shorten', line: 2, hook: 'short a' },
      { kind: 'drop', line: 3 },
      { kind: 'merge', line: 5, into: 2 },
    ]);
    expect(room.problems).toEqual([]);
    expect(room.text).toBe('# Index\n- [A](a.md) — short a\n* [C](c.md): c\n');
    expect(room.merges).toEqual([{ keeper: 'a.md', other: 'd.md' }]);
  });

  it('moves a long hook into its memory and prose lines into a new topic file', () => {
    const text = '- [A](a.md) — the whole story of a, in one line\n## Notes\nBuild with make.\nDeploy on Tuesdays.\n';
    const room = applyRoom(text, [
      { kind: 'move-hook', line: 1, hook: 'about a' },
      { kind: 'move-lines', lines: [2, 3, 4], file: 'project_notes.md', name: 'Notes', description: 'How to build and when to deploy', type: 'project' },
    ]);
    expect(room.text).toBe('- [A](a.md) — about a\n- [Notes](project_notes.md) — How to build and when to deploy\n');
    expect(room.details).toEqual([{ file: 'a.md', detail: 'the whole story of a, in one line' }]);
    expect(room.created).toEqual([
      {
        file: 'project_notes.md',
        name: 'Notes',
        description: 'How to build and when to deploy',
        type: 'project',
        body: '## Notes\nBuild with make.\nDeploy on Tuesdays.',
      },
    ]);
  });

  it('says in words which choices cannot be made', () => {
    const text = '# Index\n- [A](a.md) — a\n- [B](b.md) — b\n';
    expect(applyRoom(text, [{ kind: 'shorten', line: 1, hook: 'x' }]).problems).toEqual(['Line 1 is not a pointer, so it has no hook to shorten.']);
    expect(applyRoom(text, [{ kind: 'drop', line: 9 }]).problems).toEqual(['Line 9 is not in MEMORY.md any more.']);
    expect(
      applyRoom(text, [
        { kind: 'merge', line: 2, into: 3 },
        { kind: 'drop', line: 3 },
      ]).problems,
    ).toEqual(['Line 2 is merged into line 3, which itself leaves the index; merge into a memory that stays.']);
    expect(
      applyRoom(text, [
        { kind: 'drop', line: 2 },
        { kind: 'shorten', line: 2, hook: 'y' },
      ]).problems,
    ).toEqual(['Line 2 has two choices; keep one.']);
  });

  it('takes a merged-away memory out of every line that pointed at it', () => {
    const room = applyRoom('- [A](a.md) — a\n- [B](b.md) — b\n- [B again](b.md) — repeat\n', [{ kind: 'merge', line: 2, into: 1 }]);
    expect(room.text).toBe('- [A](a.md) — a\n');
  });
});

describe('previewRoom: the loaded part, live (R-INDEX)', () => {
  it('brings the pointers below the cut back when enough lines go', () => {
    const text = pointers(215);
    const drops = Array.from({ length: 15 }, (_, i) => ({ kind: 'drop' as const, line: 186 + i }));
    const { impact } = previewRoom(text, drops);
    expect(impact.before).toMatchObject({ lines: 215, truncated: true, cut: 15 });
    expect(impact.after).toMatchObject({ lines: 200, truncated: false, cut: 0 });
    expect(impact.newlyLoaded).toHaveLength(15);
    expect(impact.newlyLoaded).toContain('source_214.md');
    expect(impact.newlyCut).toEqual([]);
  });

  it('counts characters as Claude Code does: shortened hooks bring a long index under 25,000', () => {
    const text = pointers(120, (i) => `feed ${i}: ${'detail '.repeat(40)}`);
    const { impact } = previewRoom(
      text,
      Array.from({ length: 120 }, (_, i) => ({ kind: 'shorten' as const, line: i + 1, hook: shortenHook(`feed ${i}: ${'detail '.repeat(40)}`, 80) })),
    );
    expect(impact.before.truncated).toBe(true);
    expect(impact.after).toMatchObject({ truncated: false, cut: 0 });
    expect(impact.after.chars).toBeLessThan(25_000);
  });
});
