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
 * team/MEMORY.md naming one more memory (team_cut) where its cut would fall; as Claude Code 2.1.332
 * does not load team/MEMORY.md, team_cut is unlisted, not past a cut.
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

/**
 * In `memory`: both indexes cut, laid out with the cases where "listed" and "past the cut" once
 * differed from place to place (index-state.ts holds the one rule):
 *
 * - MEMORY.md loads kept.md, whose hook cross-references aside.md (its only link), and
 *   `team/team_a.md`; below its cut: late.md, whose hook cross-references later.md (its only
 *   link), and `team/team_b.md` (its only link);
 * - team/MEMORY.md names team_c.md above where its cut would fall, team_a.md and team_d.md below
 *   it — but Claude Code 2.1.332 does not load team/MEMORY.md at all.
 *
 * So aside.md and team_a.md reach the agent; late.md, later.md and team_b.md are past the cut;
 * team_c.md and team_d.md, listed in team/MEMORY.md only, are unlisted.
 */
export async function layOutListingHome(memory: string): Promise<void> {
  await fs.mkdir(path.join(memory, 'team'), { recursive: true });
  const prose = (n: number) => Array.from({ length: n }, (_, i) => `- note ${i + 1}: see the lab book, page ${i + 1}`);
  const main = [
    ...prose(197),
    '- [Kept](kept.md) — reaches the agent (see also [Aside](aside.md))',
    '- [Team A](team/team_a.md) — loaded through the main index',
    '',
    '- [Late](late.md) — below the cut (see [Later](later.md))',
    '- [Team B](team/team_b.md) — only below the main cut',
  ];
  await fs.writeFile(path.join(memory, 'MEMORY.md'), `${main.join('\n')}\n`);
  for (const f of ['kept', 'aside', 'late', 'later']) await fs.writeFile(path.join(memory, `${f}.md`), topic(f, 'project', `About ${f}.`));
  await fs.writeFile(
    path.join(memory, 'team', 'MEMORY.md'),
    indexWithCut(['- [Team A](team_a.md) — below the team cut', '- [Team D](team_d.md) — below both cuts']).replace(
      '- [Kept](kept.md) — reaches the agent',
      '- [Team C](team_c.md) — reaches the agent',
    ),
  );
  for (const f of ['team_a', 'team_b', 'team_c', 'team_d']) await fs.writeFile(path.join(memory, 'team', `${f}.md`), topic(f, 'reference', `About ${f}.`));
}
