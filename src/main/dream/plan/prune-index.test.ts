import { describe, expect, it } from 'vitest';
import { indexEntries, parseIndex } from '../../../shared/index-format.js';
import { loadIndexAsClaudeCode } from '../../../shared/index-load.js';
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../../shared/limits.js';
import { INDEX_TARGET, type IndexTopic, pruneIndex } from './prune-index.js';

const t = (file: string, type: IndexTopic['type'], extra: Partial<IndexTopic> = {}): IndexTopic => ({
  file,
  title: file.replace('.md', ''),
  hook: `hook of ${file}`,
  type,
  stale: false,
  ...extra,
});

describe('pruneIndex', () => {
  it('drops dangling pointers, adds orphans, merges repeats and retargets merged memories', () => {
    const text = [
      '# Memory',
      '- [A](project_a.md) — a',
      '- [Gone](gone.md) — was deleted',
      '- [B](feedback_b.md) — b',
      '- [A again](project_a.md) — twice',
      '- [Dup](feedback_dup.md) — merged away',
      '',
    ].join('\n');
    const r = pruneIndex({
      text,
      topics: [t('project_a.md', 'project'), t('feedback_b.md', 'feedback'), t('user_c.md', 'user')],
      retarget: new Map([['feedback_dup.md', 'feedback_b.md']]),
    });
    expect(r.dropped).toEqual(['gone.md']);
    expect(r.deduped).toEqual(['project_a.md', 'feedback_b.md']);
    expect(r.added).toEqual(['user_c.md']);
    expect(r.retargeted).toEqual(['feedback_dup.md → feedback_b.md']);
    // Heading kept on top; user before feedback before project.
    expect(r.text).toBe(['# Memory', '- [user_c](user_c.md) — hook of user_c.md', '- [B](feedback_b.md) — b', '- [A](project_a.md) — a', ''].join('\n'));
  });

  it('keeps pointers into subfolders that exist, and headings between runs of pointers in place', () => {
    const text = [
      '## Team',
      '- [T](team/x.md) — team',
      '- [R](reference_r.md) — r',
      '- [Out](../elsewhere.md) — not ours to judge',
      '',
      '## Feedback',
      '- [F](feedback_f.md) — f',
      '- [Gone](team/gone.md) — gone',
      '',
    ].join('\n');
    const r = pruneIndex({ text, topics: [t('reference_r.md', 'reference'), t('feedback_f.md', 'feedback')], existsOther: (f) => f === 'team/x.md' });
    expect(r.text).toBe(text.replace('- [Gone](team/gone.md) — gone\n', ''));
    expect(r.dropped).toEqual(['team/gone.md']);
    expect(r.reordered).toBe(false);
  });

  it('loads stale memories last and refreshes hooks that repeated a changed description', () => {
    const text = ['- [Old](project_old.md) — freeze starts next Friday', '- [New](project_new.md) — new', ''].join('\n');
    const r = pruneIndex({
      text,
      topics: [t('project_old.md', 'project', { stale: true }), t('project_new.md', 'project')],
      descriptions: new Map([['project_old.md', { from: 'freeze starts next Friday', to: 'freeze starts 2026-03-13' }]]),
    });
    expect(r.text).toBe(['- [New](project_new.md) — new', '- [Old](project_old.md) — freeze starts 2026-03-13', ''].join('\n'));
    expect(r.refreshedHooks).toEqual(['project_old.md']);
  });

  it('brings an index over its limit inside 200 lines and 25,000 characters with room to spare', () => {
    const topics = Array.from({ length: 300 }, (_, i) =>
      t(`project_${String(i).padStart(3, '0')}.md`, i < 10 ? 'feedback' : 'project', {
        hook: `${'a long hook that says a lot about this memory '.repeat(4)}${i}`,
      }),
    );
    const text = `${topics.map((x) => `- [${x.title}](${x.file}) — ${x.hook}`).join('\n')}\n`;
    const before = loadIndexAsClaudeCode(text);
    expect(before.lines).toBeGreaterThan(INDEX_MAX_LINES);
    expect(before.chars).toBeGreaterThan(INDEX_MAX_CHARS);
    const r = pruneIndex({ text, topics });
    const after = loadIndexAsClaudeCode(r.text!);
    expect(after.lines).toBeLessThanOrEqual(INDEX_TARGET.lines);
    expect(after.chars).toBeLessThanOrEqual(INDEX_TARGET.chars);
    expect(after.firstCutLine).toBeNull();
    expect(r.shortenedHooks).toBeGreaterThan(0);
    // The ten feedback memories matter most: all still loaded; the last project ones left out.
    const kept = indexEntries(parseIndex(r.text!)).map((e) => e.file);
    for (let i = 0; i < 10; i++) expect(kept).toContain(topics[i]!.file);
    expect(r.leftOut).toContain('project_299.md');
    expect(kept.length + r.leftOut.length).toBe(300);
  });

  it('creates no index when there is none and no memory; creates one for orphans', () => {
    expect(pruneIndex({ text: null, topics: [] }).text).toBeNull();
    expect(pruneIndex({ text: null, topics: [t('user_a.md', 'user')] }).text).toBe('- [user_a](user_a.md) — hook of user_a.md\n');
  });

  it('counts Chinese the way Claude Code does: 120 pointer lines (35 KB of UTF-8) are left as they are', () => {
    const topics = Array.from({ length: 120 }, (_, i) =>
      t(`project_${String(i).padStart(3, '0')}.md`, 'project', { hook: `${'部署测试前端后端接口文档团队会议决定'.repeat(7)}${i}` }),
    );
    const text = `${topics.map((x) => `- [${x.title}](${x.file}) — ${x.hook}`).join('\n')}\n`;
    expect(new TextEncoder().encode(text).length).toBeGreaterThan(INDEX_TARGET.chars);
    const r = pruneIndex({ text, topics });
    expect(r.shortenedHooks).toBe(0);
    expect(r.leftOut).toEqual([]);
    expect(r.text).toBe(text);
  });

  it('does not add again a memory the index links another way', () => {
    const text = '- See [Deploy notes](project_deploy.md). Read before a release.\n';
    const r = pruneIndex({ text, topics: [t('project_deploy.md', 'project')] });
    expect(r.added).toEqual([]);
    expect(r.text).toBe(text);
  });
});
