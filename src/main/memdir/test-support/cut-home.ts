/**
 * A memory folder whose index is cut (R-INDEX), for the tests of what each place counts past the
 * cut (shared/index-cut.ts): the built CLI's and the app's.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { topic } from '../../relink/test-support/moved-project.js';

/** 198 lines of prose and a pointer that reaches the agent (kept.md), then `below` past line 200. */
export function indexWithCut(below: readonly string[]): string {
  const prose = Array.from({ length: 198 }, (_, i) => `- note ${i + 1}: see the lab book, page ${i + 1}`);
  return [...prose, '- [Kept](kept.md) — reaches the agent', '', ...below].join('\n') + '\n';
}

/**
 * In `memory`: MEMORY.md with 24 pointers below its cut — cut_a and cut_b, twenty to files that do
 * not exist, cut_c on a `- See […](…)` line, and a repeat of kept.md, which loads higher up — and
 * team/MEMORY.md with one more memory (team_cut) past its own cut.
 */
export async function layOutCutHome(memory: string): Promise<void> {
  await fs.mkdir(path.join(memory, 'team'), { recursive: true });
  const gone = Array.from({ length: 20 }, (_, i) => `- [Gone ${i}](gone_${i}.md) — below the cut`);
  const below = [
    '- [Cut A](cut_a.md) — below the cut',
    ...gone,
    '- [Cut B](cut_b.md) — below the cut',
    '- See [Cut C](cut_c.md) for the details',
    '- [Kept](kept.md) — again',
  ];
  await fs.writeFile(path.join(memory, 'MEMORY.md'), indexWithCut(below));
  for (const f of ['kept', 'cut_a', 'cut_b', 'cut_c']) await fs.writeFile(path.join(memory, `${f}.md`), topic(f, 'project', `About ${f}.`));
  await fs.writeFile(path.join(memory, 'team', 'MEMORY.md'), indexWithCut(['- [Team cut](team_cut.md) — below the cut']));
  await fs.writeFile(path.join(memory, 'team', 'team_cut.md'), topic('team_cut', 'reference', 'Where the dashboards are.'));
}
