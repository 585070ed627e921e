import { describe, expect, it } from 'vitest';
import { findRelevantMemories } from './find-relevant-memories.js';
import { explainRecall } from './explain-recall.js';
import { LocalRanker } from './local-ranker.js';

const memories = [
  { file: 'project_deploys.md', name: 'Deploy window', description: 'Deploys happen on Tuesday mornings, never on Fridays', type: 'project' as const },
  { file: 'feedback_sql.md', name: 'No ORM', description: 'We write SQL by hand; the 数据库 is Postgres', type: 'feedback' as const },
  { file: 'reference_grafana.md', name: 'Checkout dashboard', description: 'Grafana board for checkout latency', type: 'reference' as const },
  ...Array.from({ length: 6 }, (_, i) => ({
    file: `project_deploy_${i}.md`,
    name: `Deploy note ${i}`,
    description: `deploy checklist item ${i}, deployed weekly`,
    type: 'project' as const,
  })),
];

describe('explainRecall', () => {
  it("says why each memory was or was not chosen, with the query's words found in the memory's own words", async () => {
    const result = await findRelevantMemories({ query: 'when are we deploying to the database?', memories, provider: null });
    const explanation = result.explanation!;
    expect(explanation.queryWords.map((q) => [q.term, q.words])).toEqual([
      ['deploy', ['deploying']],
      ['databas', ['database']],
    ]);
    const sql = explanation.candidates.find((c) => c.file === 'feedback_sql.md')!;
    expect(sql.matched).toEqual([{ query: 'database', memory: ['数据库'], synonym: true }]);
    expect(sql.highlights.map((h) => sql[h.field].slice(h.start, h.end))).toEqual(['数据库']);
    const deploys = explanation.candidates.find((c) => c.file === 'project_deploys.md')!;
    expect(deploys.highlights.map((h) => deploys[h.field].slice(h.start, h.end))).toEqual(['Deploy', 'Deploys']);
    const fates = new Map(explanation.candidates.map((c) => [c.file, c.fate]));
    expect([...fates.values()].filter((f) => f === 'chosen')).toHaveLength(5);
    expect([...fates.values()].filter((f) => f === 'outranked')).toHaveLength(3);
    const outranked = explanation.candidates.find((c) => c.fate === 'outranked')!;
    expect(outranked.reason).toMatch(/^Outranked: it ranks \d+th \(score [\d.]+ against [\d.]+ for the 5th\); only 5 are loaded\. It matches “deploying”\.$/);
    expect(explanation.unmatched).toMatchObject({ count: 1, files: ['reference_grafana.md'] });
    expect(explanation.unmatched.reason).toMatch(/below the local ranker's threshold of one shared word/);
  });

  it("gives the model's own reason, and says what it passed over, what it never saw and what the session already loaded", () => {
    const ranker = new LocalRanker();
    ranker.addAll(memories);
    const explanation = explainRecall({
      query: 'deploying',
      candidates: memories,
      ranker,
      result: {
        method: 'model',
        selected: [{ file: 'project_deploys.md', reason: 'the user is about to deploy' }],
        latencyMs: 1,
        provider: 'anthropic',
        dropped: [],
        alwaysLoaded: null,
        notes: [],
        manifest: { memories: 9, sent: 8, chars: 0, prefiltered: true },
        query: { chars: 9, usedChars: 9, truncated: false },
      },
      offered: new Set(memories.map((m) => m.file).filter((f) => f !== 'project_deploy_5.md')),
      excluded: new Set(['project_deploy_0.md']),
    });
    const fate = (file: string) => explanation.candidates.find((c) => c.file === file);
    expect(fate('project_deploys.md')).toMatchObject({ fate: 'chosen', reason: 'The model chose it: the user is about to deploy' });
    expect(fate('project_deploy_1.md')).toMatchObject({ fate: 'not-chosen' });
    expect(fate('project_deploy_1.md')!.reason).toMatch(/^The model did not choose it\. The local ranker ranks it \d+(st|nd|rd|th), matching “deploying”\.$/);
    expect(fate('project_deploy_5.md')).toMatchObject({ fate: 'not-offered' });
    expect(fate('project_deploy_0.md')).toMatchObject({ fate: 'already-loaded' });
  });

  it('never chooses a memory already recalled in the session', async () => {
    const result = await findRelevantMemories({ query: 'deploy checklist', memories, provider: null, exclude: ['project_deploy_0.md'] });
    expect(result.selected.map((s) => s.file)).not.toContain('project_deploy_0.md');
    expect(result.selected).toHaveLength(5);
    expect(result.explanation!.candidates.find((c) => c.file === 'project_deploy_0.md')!.fate).toBe('already-loaded');
  });
});

describe('the score a person reads', () => {
  it('is one number in the list of chosen memories, in the explanation and in its sentence', async () => {
    const words = ['deploy', 'database', 'checkout', 'latency', 'Postgres', 'Grafana', 'release', 'Friday', 'review', 'SQL', '数据库', 'hook', 'cache', 'lint'];
    const many = Array.from({ length: 60 }, (_, i) => ({
      file: `project_${i}.md`,
      name: `${words[i % words.length]} note ${i}`,
      description: Array.from({ length: 1 + (i % 7) }, (_, k) => words[(i * 3 + k * 5) % words.length]).join(' ') + ` #${i}: "quoted" https://example.com/${i}`,
      type: 'project' as const,
    }));
    let compared = 0;
    for (let q = 0; q < words.length; q++) {
      const query = `${words[q]} ${words[(q + 4) % words.length]} ${words[(q + 9) % words.length]}`;
      const result = await findRelevantMemories({ query, memories: many, provider: null });
      for (const s of result.selected) {
        const candidate = result.explanation!.candidates.find((c) => c.file === s.file)!;
        expect(candidate.score).toBe(s.score);
        expect(candidate.reason).toContain(`score ${s.score!.toFixed(2)}`);
        compared++;
      }
      for (const c of result.explanation!.candidates.filter((c) => c.fate === 'outranked')) expect(c.reason).toContain(`score ${c.score!.toFixed(2)}`);
    }
    expect(compared).toBeGreaterThan(50);
  });
});
