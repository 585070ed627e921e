/**
 * `fuzz`: every parser of outside data (test/fuzz/targets.ts: frontmatter, index lines,
 * transcript JSONL, hook payloads, the sync protocol on both sides, settings files) on at least
 * 10,000 generated inputs each — mostly almost-right shapes with hostile values, partly noise.
 * Reports, per parser, the cases run, how many were accepted and rejected, and crashes: an
 * exception, a broken contract or a rejection that is not a clear sentence (target 0). Seeded,
 * so a crash reported here replays with the same seed.
 */
import { FUZZ_TARGETS, runFuzzTarget } from '../../test/fuzz/targets.js';
import type { Scenario } from '../lib.js';

const CASES = 10_000;
const SEED = 20261203;

export const fuzzScenario: Scenario = {
  name: 'fuzz',
  description: `${FUZZ_TARGETS.length} parsers of outside data, ${CASES.toLocaleString('en')} generated inputs each: crashes and unclear rejections`,
  async run(log) {
    const figures: Record<string, number | string> = {};
    let crashes = 0;
    let cases = 0;
    for (const target of FUZZ_TARGETS) {
      const report = await runFuzzTarget(target, CASES, SEED);
      cases += report.cases;
      crashes += report.crashes;
      log(
        `${target.name} (${target.reads}): ${report.cases} cases, ${report.accepted} accepted, ${report.rejected} rejected with a sentence, ${report.crashes} crashes, ${Math.round(report.ms)} ms`,
      );
      if (report.failure) log(`  CRASH: ${report.failure}`);
      figures[`${target.name}: cases`] = report.cases;
      figures[`${target.name}: accepted`] = report.accepted;
      figures[`${target.name}: rejected`] = report.rejected;
      figures[`${target.name}: crashes`] = report.crashes;
    }
    const fewest = Math.min(...FUZZ_TARGETS.map((t) => Number(figures[`${t.name}: cases`])));
    figures['cases (all parsers)'] = cases;
    figures.seed = SEED;
    return {
      ratios: {
        crashes: {
          value: crashes,
          target: 0,
          better: 'lower',
          note: `over ${cases.toLocaleString('en')} cases; a crash stops its parser's run, so each counts once`,
        },
        'cases per parser (fewest)': { value: fewest, target: CASES, better: 'higher', note: 'every parser ran its full count (a crash ends a run early)' },
      },
      figures,
    };
  },
};
