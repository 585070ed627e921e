/**
 * `secrets`: the secret scanner on a labelled set built from public rule documentation
 * (bench/data/secrets-labelled.ts) — recall (target ≥ 0.95) and false-positive rate (target
 * ≤ 0.05) — and its speed before an upload: 5,000 realistic memories scanned one by one,
 * against the bare @secretlint/core recommended preset on the same files (what our extra
 * rules and post-processing cost, target ≤ 2), with absolute per-file times.
 */
import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { scanText } from '../../src/main/secrets/scanner.js';
import { generateMemory, loadCorpus } from '../corpus.js';
import { buildLabelledSet } from '../data/secrets-labelled.js';
import { type Scenario, compare, median, percentile } from '../lib.js';

const FILES = 5_000;
const ROUNDS = 3;

const PRESET_ONLY = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }] };

/**
 * The throughput run's texts: realistic memories (bench/corpus.ts), one in fifty carrying a
 * credential of the labelled set, like a team memory with a few leaks. (Credentials in the text:
 * the ones in a name are about the name, not the body.) Also what bench/profile-secrets.ts profiles.
 */
export function throughputFiles(): string[] {
  const inText = buildLabelledSet().filter((s) => s.label === 'secret' && !s.name);
  const corpus = loadCorpus();
  return Array.from({ length: FILES }, (_, i) => {
    const text = generateMemory(corpus, 13, i).text;
    return i % 50 === 0 ? `${text}\n${inText[i % inText.length]!.text}\n` : text;
  });
}

export const secretsScenario: Scenario = {
  name: 'secrets',
  description: `secret scanner: labelled set recall / false positives, and ${FILES} memory files scanned one by one`,
  async run(log) {
    const set = buildLabelledSet();
    const secrets = set.filter((s) => s.label === 'secret');
    const clean = set.filter((s) => s.label === 'clean');
    const missed: string[] = [];
    const flagged: string[] = [];
    for (const sample of set) {
      const hit = (await scanText(sample.text, { file: sample.id, ...(sample.name ? { name: sample.name } : {}) })).length > 0;
      if (sample.label === 'secret' && !hit) missed.push(`${sample.id} (${sample.provider})`);
      if (sample.label === 'clean' && hit) flagged.push(`${sample.id} (${sample.provider})`);
    }
    for (const m of missed) log(`missed ${m}`);
    for (const f of flagged) log(`false positive ${f}`);
    const recall = (secrets.length - missed.length) / secrets.length;
    const falsePositiveRate = flagged.length / clean.length;

    const files = throughputFiles();
    const bytes = files.reduce((n, f) => n + Buffer.byteLength(f), 0);
    log(`${FILES} files, ${(bytes / FILES).toFixed(0)} bytes each on average, ${set.length} labelled samples`);
    const perFile: number[] = [];
    let findings = 0;
    const timed = await compare(
      ROUNDS,
      async () => {
        for (const content of files)
          await lintSource({ source: { content, filePath: 'x.md', contentType: 'text' }, options: { config: PRESET_ONLY as never, noPhysicFilePath: true } });
      },
      async () => {
        perFile.length = 0;
        findings = 0;
        for (const content of files) {
          const start = performance.now();
          findings += (await scanText(content, { file: 'x.md' })).length > 0 ? 1 : 0;
          perFile.push(performance.now() - start);
        }
      },
    );
    const withSecret = files.filter((_, i) => i % 50 === 0).length;
    if (findings < withSecret) throw new Error(`throughput run: ${findings} files flagged, expected at least ${withSecret}`);
    return {
      ratios: {
        recall: { value: recall, target: 0.95, better: 'higher', note: `${secrets.length - missed.length}/${secrets.length} fake credentials found` },
        'false-positive rate': { value: falsePositiveRate, target: 0.05, better: 'lower', note: `${flagged.length}/${clean.length} look-alikes flagged` },
        'scan / bare secretlint preset': { value: timed.ratio, target: 2, better: 'lower', note: 'cost of the extra rules and post-processing' },
      },
      figures: {
        'labelled credentials': secrets.length,
        'labelled look-alikes': clean.length,
        providers: new Set(secrets.map((s) => s.provider)).size,
        files: FILES,
        'mean bytes per file': Math.round(bytes / FILES),
        'scan all files ms': timed.subjectMs,
        'bare preset all files ms': timed.baselineMs,
        'per-file ms (mean)': timed.subjectMs / FILES,
        'per-file ms (median, last round)': median(perFile),
        'per-file ms (p95, last round)': percentile(perFile, 95),
        'per-file ms (max, last round)': Math.max(...perFile),
        'files flagged': findings,
      },
    };
  },
};
