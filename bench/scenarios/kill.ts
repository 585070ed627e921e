/**
 * `kill`: SIGKILL at random moments during writes, dreams, extraction and team sync — at least
 * 200 kills in all (bench/kill/). After each, what a next start finds is checked: no file torn
 * or lost (memories, team edits, extracted facts), history intact (`git fsck`, nothing on disk
 * left unrecorded), and every status truthful (dream status, team status, extraction state).
 * Reports kills, crashes (a worker dying on its own, a next start failing), losses, history
 * problems and untruthful statuses — all targets 0 but the kills.
 */
import { killDreams } from '../kill/dreams.js';
import { killExtraction } from '../kill/extraction.js';
import { type KillTally, emptyTally } from '../kill/harness.js';
import { killSync } from '../kill/sync.js';
import { killWrites } from '../kill/writes.js';
import { type Scenario, prng } from '../lib.js';

/** Kills per kind: 220 in all. */
const PLAN = { writes: 70, dreams: 50, extraction: 50, sync: 50 };

export const killScenario: Scenario = {
  name: 'kill',
  description: `SIGKILL at random moments: ${PLAN.writes} during writes, ${PLAN.dreams} during dreams, ${PLAN.extraction} during extraction, ${PLAN.sync} during team sync`,
  async run(log) {
    const random = prng(20261203);
    const runs: [string, (n: number, r: () => number) => Promise<KillTally>, number][] = [
      ['writes', killWrites, PLAN.writes],
      ['dreams', killDreams, PLAN.dreams],
      ['extraction', killExtraction, PLAN.extraction],
      ['sync', killSync, PLAN.sync],
    ];
    const total = emptyTally();
    const figures: Record<string, number | string> = {};
    for (const [name, run, n] of runs) {
      const start = performance.now();
      const tally = await run(n, random);
      log(
        `${name}: ${tally.kills} kills (${tally.finished} runs finished first), ${tally.crashes} crashes, ${tally.losses} losses, ${tally.history} history problems, ${tally.untruthful} untruthful statuses (${tally.conservative} on the safe side), ${Math.round((performance.now() - start) / 1000)} s`,
      );
      if (Object.keys(tally.landed).length > 0)
        log(
          `  kills landed: ${Object.entries(tally.landed)
            .map(([where, n]) => `${n} ${where}`)
            .join(', ')}`,
        );
      for (const [where, n] of Object.entries(tally.landed)) figures[`${name}: kills ${where}`] = n;
      for (const problem of tally.problems) log(`  ${problem}`);
      for (const key of ['kills', 'finished', 'crashes', 'losses', 'history', 'untruthful', 'conservative'] as const) {
        figures[`${name}: ${key}`] = tally[key];
        total[key] += tally[key];
      }
    }
    return {
      ratios: {
        kills: { value: total.kills, target: 200, better: 'higher', note: 'SIGKILLs that landed while the work was in progress' },
        crashes: { value: total.crashes, target: 0, better: 'lower', note: 'a worker dying on its own, or a next start failing' },
        losses: { value: total.losses, target: 0, better: 'lower', note: 'files torn or lost: memories, team edits, extracted facts' },
        'history problems': { value: total.history, target: 0, better: 'lower', note: 'git fsck failures, changes left unrecorded' },
        'untruthful statuses': { value: total.untruthful, target: 0, better: 'lower', note: 'dream, team and extraction status on the next start' },
      },
      figures,
    };
  },
};
