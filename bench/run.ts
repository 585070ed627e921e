/**
 * `npm run bench [scenario…]`: runs the named scenarios (all by default), prints each ratio
 * against its target with the absolute figures, merges them into bench/results.json and ends
 * with one table: every ratio, its target, pass or miss. Exit 1 when a target is missed or a
 * scenario fails.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Ratio, type Scenario, meets, round } from './lib.js';
import { SCENARIOS } from './scenarios/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsFile = path.join(here, 'results.json');

interface Row {
  scenario: string;
  measure: string;
  value: string;
  target: string;
  verdict: 'pass' | 'MISS' | 'ERROR';
}

function targetText(r: Ratio): string {
  return `${r.better === 'lower' ? '≤' : '≥'} ${r.target}`;
}

function table(rows: Row[]): string {
  const headers: Row = { scenario: 'scenario', measure: 'measure', value: 'value', target: 'target', verdict: 'pass' };
  const cols = ['scenario', 'measure', 'value', 'target', 'verdict'] as const;
  const width = (c: (typeof cols)[number]) => Math.max(...[headers, ...rows].map((r) => (c === 'verdict' && r === headers ? 'result' : r[c]).length));
  const line = (r: Row, head = false) => cols.map((c) => (c === 'verdict' && head ? 'result' : r[c]).padEnd(width(c))).join('  ');
  return [line(headers, true), cols.map((c) => '-'.repeat(width(c))).join('  '), ...rows.map((r) => line(r))].join('\n');
}

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
  const machine = {
    node: process.version,
    cpus: os.cpus().length,
    platform: `${process.platform}-${process.arch}`,
    loadavg: os.loadavg().map((l) => round(l, 2)),
  };
  const rows: Row[] = [];
  for (const scenario of chosen) {
    process.stdout.write(`\n== ${scenario.name}: ${scenario.description}\n`);
    let result;
    try {
      result = await scenario.run((line) => process.stdout.write(`   ${line}\n`));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      process.stdout.write(`   ERROR ${message}\n`);
      rows.push({ scenario: scenario.name, measure: message.split('\n')[0]!.slice(0, 80), value: '-', target: '-', verdict: 'ERROR' });
      previous[scenario.name] = { error: message, measuredAt: new Date().toISOString(), machine };
      continue;
    }
    for (const [name, r] of Object.entries(result.ratios)) {
      const ok = meets(r);
      process.stdout.write(`   ${ok ? 'ok  ' : 'MISS'} ${name}: ${round(r.value)} (target ${targetText(r)})${r.note ? ` — ${r.note}` : ''}\n`);
      rows.push({ scenario: scenario.name, measure: name, value: String(round(r.value)), target: targetText(r), verdict: ok ? 'pass' : 'MISS' });
    }
    for (const [name, v] of Object.entries(result.figures)) process.stdout.write(`        ${name} = ${typeof v === 'number' ? round(v) : v}\n`);
    previous[scenario.name] = { ...result, measuredAt: new Date().toISOString(), machine };
  }
  await fs.writeFile(resultsFile, `${JSON.stringify(previous, null, 2)}\n`);
  const failed = rows.filter((r) => r.verdict !== 'pass').length;
  process.stdout.write(
    `\n${table(rows)}\n\nWrote ${path.relative(process.cwd(), resultsFile)}: ${rows.length - failed} of ${rows.length} targets met${failed ? `, ${failed} missed or failed` : ''}.\n`,
  );
  return failed ? 1 : 0;
}

process.exitCode = await main();
