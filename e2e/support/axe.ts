/**
 * axe-core run in the page: its findings of moderate impact or worse, one line each ("dark index:
 * color-contrast (2): .chip, …"). One place for how the e2e suites run axe and what they count.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let source: Promise<string> | undefined;

/** What axe finds on `page` now, moderate or worse (session 41: heading-order is moderate), each line starting with `label`. */
export async function axeFindings(page: Page, label: string): Promise<string[]> {
  await page.evaluate(await (source ??= fs.readFile(AXE, 'utf8')));
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })))",
  )) as { id: string; impact: string; nodes: string[] }[];
  return violations.filter((v) => v.impact !== 'minor').map((v) => `${label}: ${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).join(', ')}`);
}
