/**
 * The real memory directories other projects wrote (`shared/fixtures/memories/`, read-only):
 * found by `$MEMDIR_FIXTURES` or by walking up from the repository. Tests that need them skip
 * with a reason when they are absent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The fixtures folder, or null when this checkout has none above it. */
export function realFixturesRoot(): string | null {
  if (process.env.MEMDIR_FIXTURES) return fs.existsSync(process.env.MEMDIR_FIXTURES) ? path.resolve(process.env.MEMDIR_FIXTURES) : null;
  for (let dir = here; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'fixtures', 'memories');
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** Why fixture tests are skipped, for the skip message. */
export const NO_FIXTURES = 'the real memory fixtures (shared/fixtures/memories) are not above this checkout; set MEMDIR_FIXTURES';

/** Every `*.md` topic file under the fixtures (indexes and the fixtures' own README/SOURCE excluded). */
export function realTopicFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.name.endsWith('.md') && entry.name !== 'MEMORY.md' && entry.name !== 'SOURCE.md' && dir !== root) out.push(abs);
    }
  };
  walk(root);
  return out.sort();
}
