/**
 * Where the secret scan's time goes: the `secrets` scenario's throughput texts (5,000 realistic
 * memories, one in fifty with a credential), scanned one by one beside the bare secretlint
 * preset as the scenario times them, how many texts each view of the scanner applies to
 * (views.ts), then the scan run `rounds` times alone under the V8 CPU profiler (started
 * in-process: building the texts and compiling the code are left out) and the profile's self
 * time summed by function, per round. Not a scenario: no ratio is judged, nothing is written to
 * bench/results.json.
 *
 *   npx tsx --expose-gc bench/profile-secrets.ts [rounds] [top]
 */
import { Session } from 'node:inspector/promises';
import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { scanText } from '../src/main/secrets/scanner.js';
import { base64View, decodedView, joinedView } from '../src/main/secrets/views.js';
import { settle } from './lib.js';
import { throughputFiles } from './scenarios/secrets.js';
import { type Profile, selfTimes } from './cpu-profile.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const PRESET_ONLY = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }] };

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const top = Number(process.argv[3] ?? 30);
  const files = throughputFiles();
  const preset = async () => {
    for (const content of files)
      await lintSource({ source: { content, filePath: 'x.md', contentType: 'text' }, options: { config: PRESET_ONLY as never, noPhysicFilePath: true } });
  };
  const scan = async () => {
    for (const content of files) await scanText(content, { file: 'x.md' });
  };
  const views = { decoded: 0, joined: 0, base64: 0 };
  for (const text of files) {
    const decoded = decodedView(text);
    if (decoded) views.decoded++;
    if (joinedView(text)) views.joined++;
    if (base64View(decoded?.text ?? text)) views.base64++;
  }
  await preset();
  await scan();
  const presetMs: number[] = [];
  const scanMs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    settle();
    let start = performance.now();
    await preset();
    presetMs.push(performance.now() - start);
    settle();
    start = performance.now();
    await scan();
    scanMs.push(performance.now() - start);
  }
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  for (let i = 0; i < rounds; i++) {
    settle();
    await scan();
  }
  const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
  session.disconnect();
  const times = selfTimes(profile);
  console.log(
    `${files.length} texts, ${rounds} rounds: bare preset ${median(presetMs).toFixed(1)} ms, scan ${median(scanMs).toFixed(1)} ms (${(median(scanMs) / median(presetMs)).toFixed(2)}x)`,
  );
  console.log(`texts with a view besides the text as written: decoded ${views.decoded}, joined ${views.joined}, base64 ${views.base64}`);
  console.log(`self time per round under the profiler, top ${top}:`);
  for (const [name, value] of [...times].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${`${(value / rounds).toFixed(1)} ms`.padStart(10)}  ${name}`);
}

await main();
