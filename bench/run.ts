/**
 * `npm run bench [scenario…]`: runs the named scenarios (all by default), prints each ratio
 * against its target with the absolute figures, and merges them into bench/results.json.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Scenario, meets, round } from './lib.js';
import { SCENARIOS } from './scenarios/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, 'results.json');

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SCENARIOS.some((s) => s.name === w));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
    return 2;
  }
  const chosen: Scenario[] = wanted.length ? SCENARIOS.filter((s) => wanted.includes(s.name)) : SCENARIOS;
  // Merge: running one scenario keeps the others' last results.
  const previous = (await fs.readFile(resultsFile, 'utf8').then(JSON.parse, () => ({}))) as Record<string, unknown>;
  const machine = { node: process.version, cpus: os.cpus().length, platform: `${process.platform}-${process.arch}` };
  let missed = 0;
  for (const scenario of chosen) {
    process.stdout.write(`\n== ${scenario.name}: ${scenario.description}\n`);
    const result = await scenario.run((line) => process.stdout.write(`   ${line}\n`));
    for (const [name, r] of Object.entries(result.ratios)) {
      const ok = meets(r);
      if (!ok) missed++;
      process.stdout.write(`   ${ok ? 'ok  ' : 'MISS'} ${name}: ${round(r.value)} (target ${r.better === 'lower' ? '≤' : '≥'} ${r.target})${r.note ? ` — ${r.note}` : ''}\n`);
    }
    for (const [name, v] of Object.entries(result.figures)) process.stdout.write(`        ${name} = ${typeof v === 'number' ? round(v) : v}\n`);
    previous[scenario.name] = { ...result, measuredAt: new Date().toISOString(), machine };
  }
  await fs.writeFile(resultsFile, `${JSON.stringify(previous, null, 2)}\n`);
  process.stdout.write(`\nWrote ${path.relative(process.cwd(), resultsFile)}${missed ? ` — ${missed} target(s) missed` : ''}.\n`);
  return 0;
}

process.exitCode = await main();
