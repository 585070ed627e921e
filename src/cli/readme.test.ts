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

/** The README sections whose heading names `memdir <name>` (alone, or among `a|b|c` subcommands). */
function sectionsOf(name: readonly string[]): string {
  const parent = name.slice(0, -1).join(' ');
  const last = name[name.length - 1]!;
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const heading = new RegExp(
    `memdir ${escape(name.join(' '))}(?![a-z-])${parent ? `|memdir ${escape(parent)} ([a-z-]+\\|)*${escape(last)}(\\|[a-z-]+)*(?![a-z-])` : ''}`,
  );
  const found = README.split(/\n(?=#{2,3} )/)
    .filter((part) => /^#{2,3} /.test(part) && heading.test(part.split('\n')[0]!))
    .join('\n');
  // `memdir server admin list` is documented in the section of `memdir server admin …`.
  return found || name.length === 1 ? found : sectionsOf(name.slice(0, -1));
}

/** The keys a command's `--help` lists in its JSON shape (`JSON: {"a", "b": [{"c"}]}`). */
function helpJsonKeys(help: string): string[] {
  const json = help.slice(help.indexOf('JSON'));
  return [...new Set([...json.matchAll(/(?<=[{,[]\s*)"([A-Za-z][A-Za-z0-9]*)"(?=\s*[:,}\]])/g)].map((m) => m[1]!))];
}

/**
 * JSON fields the README did not name yet when the check above was made general (it covered only
 * scan, lint and agents, so `hooks status --json` went undocumented unnoticed). The list may only
 * shrink: a field documented since fails the check until it is taken off.
 */
const UNDOCUMENTED: Record<string, string[]> = {
  restore: ['rev', 'time', 'source', 'summary', 'files'],
  undo: ['rev', 'time', 'source', 'summary', 'files'],
  relink: ['label', 'dir', 'identity', 'path', 'at', 'revs'],
  merge: [
    'applied',
    'plan',
    'kind',
    'label',
    'dir',
    'memoryDir',
    'identity',
    'target',
    'path',
    'area',
    'action',
    'areas',
    'from',
    'to',
    'indexAdded',
    'notInIndex',
    'evidence',
    'warnings',
    'blockers',
    'record',
    'createdAt',
    'touched',
    'rev',
    'n',
    'status',
    'resolution',
    'resolvedAt',
    'undone',
    'redone',
    'earlier',
    'at',
    'revs',
  ],
  'merge conflicts': ['n', 'area', 'memoryDir', 'status'],
  'merge undo': ['at', 'revs', 'redone'],
  import: [
    'applied',
    'plan',
    'kind',
    'source',
    'label',
    'memoryDir',
    'target',
    'area',
    'action',
    'areas',
    'from',
    'to',
    'indexAdded',
    'notInIndex',
    'evidence',
    'blockers',
    'record',
    'id',
    'createdAt',
    'touched',
    'conflicts',
    'n',
    'status',
    'resolution',
    'resolvedAt',
    'undone',
    'redone',
    'earlier',
    'at',
    'revs',
  ],
  dream: ['files', 'message', 'input', 'output'],
  'dream status': ['behavior', 'file', 'folder'],
  'dream list': ['memoryDir', 'dreams', 'trigger', 'status', 'method', 'startedAt', 'durationMs', 'tokens', 'changes', 'flags', 'report'],
  'dream revert': ['file', 'message'],
};

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

  it('documents the JSON of every command that prints JSON: its --help shows the shape, its README section names each field', () => {
    const gaps: string[] = [];
    for (const spec of COMMANDS.filter((c) => c.options.json)) {
      const name = spec.name.join(' ');
      const help = commandHelp(spec);
      if (!help.includes('JSON')) {
        gaps.push(`${name}: --help shows no JSON shape`);
        continue;
      }
      const readme = sectionsOf(spec.name);
      if (readme === '') gaps.push(`${name}: no README section`);
      const missing = helpJsonKeys(help).filter((key) => !readme.includes(`"${key}"`) && !readme.includes(`\`${key}\``));
      const known = UNDOCUMENTED[name] ?? [];
      const newGaps = missing.filter((key) => !known.includes(key));
      if (newGaps.length > 0) gaps.push(`${name}: README leaves out ${newGaps.join(', ')}`);
      // Documented since: take it off the list, so the list only shrinks.
      const closed = known.filter((key) => !missing.includes(key));
      if (closed.length > 0) gaps.push(`${name}: ${closed.join(', ')} now documented; remove from UNDOCUMENTED`);
    }
    expect(gaps).toEqual([]);
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
