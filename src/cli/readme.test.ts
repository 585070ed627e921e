import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandHelp, runCli } from './main.js';
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
  it("names every field memdir agents --json prints, in its section and its --help (the app's agents.list shape)", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-readme-agents-'));
    try {
      const home = path.join(root, 'claude');
      const memory = path.join(home, 'agent-memory', 'helper');
      fs.mkdirSync(path.join(home, 'agents'), { recursive: true });
      fs.mkdirSync(memory, { recursive: true });
      fs.writeFileSync(path.join(home, 'agents', 'helper.md'), '---\nname: helper\ndescription: helps\nmemory: user\n---\nHelp.\n');
      fs.writeFileSync(path.join(home, 'agents', 'odd.md'), '---\nname: odd\ndescription: odd\nmemory: everywhere\n---\nOdd.\n');
      fs.writeFileSync(path.join(memory, 'MEMORY.md'), '- [Tabs](tabs.md) — tabs\n');
      fs.writeFileSync(path.join(memory, 'tabs.md'), '---\nname: tabs\ndescription: tabs\ntype: feedback\n---\nTabs.\n');
      let out = '';
      const env = { MEMDIR_DATA_DIR: path.join(root, 'data'), CLAUDE_CONFIG_DIR: home };
      expect(await runCli(['agents', '--json'], { out: (t) => (out += t), err: () => undefined, env, cwd: root })).toBe(0);
      const answer = JSON.parse(out) as { agents: { scopes: { scan: unknown }[] }[] };
      const scans = answer.agents.flatMap((a) => a.scopes.map((s) => s.scan));
      for (const a of answer.agents) for (const s of a.scopes) s.scan = s.scan ? {} : null;
      const own = [...keysOf(answer)];
      const help = commandHelp(COMMANDS.find((c) => c.name.join(' ') === 'agents')!);
      expect(own.filter((key) => !section('agents').includes(`"${key}"`))).toEqual([]);
      expect(own.filter((key) => !help.includes(`"${key}"`))).toEqual([]);
      // What is inside each scan is memdir scan's, documented there.
      expect([...keysOf(scans)].filter((key) => !section('scan').includes(`"${key}"`))).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
