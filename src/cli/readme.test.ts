import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './main.js';
import { COMMANDS } from './registry.js';
import { buildFixtureHome } from '../main/memdir/test-support/fixture-home.js';

const README = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');

/** `memdir a b c`, or `memdir a b x|c|y` (several subcommands documented together). */
function documented(name: readonly string[]): boolean {
  if (README.includes(`memdir ${name.join(' ')}`)) return true;
  const parent = name.slice(0, -1).join(' ');
  const last = name[name.length - 1]!;
  const together = new RegExp(`memdir ${parent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ([a-z-]+\\|)*${last}(\\|[a-z-]+)*\\b`);
  return parent !== '' && together.test(README);
}

/** The README section of a command: from its heading to the next. */
function section(command: string): string {
  const start = README.indexOf(`### \`memdir ${command}`);
  const end = README.indexOf('\n### ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

/** Every key of every object in a JSON value. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, into);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysOf(v, into);
    }
  return into;
}

describe('README', () => {
  it('documents every memdir command', () => {
    const missing = COMMANDS.map((c) => c.name).filter((name) => !documented(name));
    expect(missing.map((n) => n.join(' '))).toEqual([]);
  });

  it('names every field memdir scan --json and memdir lint --json print (JSON shapes are contracts)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-readme-'));
    try {
      const fixture = await buildFixtureHome(root);
      const env = { MEMDIR_DATA_DIR: path.join(root, 'data'), CLAUDE_CONFIG_DIR: fixture.home };
      for (const command of ['scan', 'lint']) {
        let out = '';
        await runCli([command, '--json'], { out: (t) => (out += t), err: () => undefined, env, cwd: root });
        const documented = section(command);
        expect(
          [...keysOf(JSON.parse(out))].filter((key) => !documented.includes(`"${key}"`)),
          command,
        ).toEqual([]);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
