import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandHelp, runCli } from './main.js';
import { COMMANDS } from './registry.js';
import { buildFixtureHome } from '../main/memdir/test-support/fixture-home.js';
import { addMemories, addSession, makeRepo, movedWithOneConflict, topic, twoClones } from '../main/relink/test-support/moved-project.js';
import { sanitizeDirName } from '../shared/sanitize.js';

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

/**
 * What documents a command's JSON in the README: its sections, and the one they send the reader to
 * for a shape said once (`the JSON of \`memdir relink\``: merge and import print relink's plan and record).
 */
function readmeJson(name: readonly string[]): string {
  const own = sectionsOf(name);
  const sent = [...own.matchAll(/JSON of `memdir ([a-z][a-z -]*[a-z])`/g)].map((m) => m[1]!);
  return [own, ...[...new Set(sent)].map((other) => sectionsOf(other.split(' ')))].join('\n');
}

/** A command's `--help`, with the one it sends the reader to for its JSON (`see \`memdir relink --help\``). */
function helpJson(spec: (typeof COMMANDS)[number]): string {
  const own = commandHelp(spec);
  const sent = [...own.matchAll(/see `memdir ([a-z][a-z -]*[a-z]) --help`/g)].map((m) => m[1]!);
  const other = (name: string) => COMMANDS.find((c) => c.name.join(' ') === name);
  return [own, ...[...new Set(sent)].map((name) => (other(name) ? commandHelp(other(name)!) : ''))].join('\n');
}

/** The keys a command's `--help` lists in its JSON shape (`JSON: {"a", "b": [{"c"}]}`). */
function helpJsonKeys(help: string): string[] {
  const json = help.slice(help.indexOf('JSON'));
  return [...new Set([...json.matchAll(/(?<=[{,[]\s*)"([A-Za-z][A-Za-z0-9]*)"(?=\s*[:,}\]])/g)].map((m) => m[1]!))];
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

  it('names every option of every command in its README section (options are contracts too: session 40 found --max-body, --rate, merge --json unnamed)', () => {
    const missing = COMMANDS.flatMap((spec) => {
      const readme = sectionsOf(spec.name);
      return Object.keys(spec.options)
        .filter((option) => !new RegExp(`--${option}(?![a-z-])`).test(readme))
        .map((option) => `memdir ${spec.name.join(' ')} --${option}`);
    });
    expect(missing).toEqual([]);
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
      if (sectionsOf(spec.name) === '') gaps.push(`${name}: no README section`);
      const readme = readmeJson(spec.name);
      const missing = helpJsonKeys(help).filter((key) => !readme.includes(`"${key}"`) && !readme.includes(`\`${key}\``));
      if (missing.length > 0) gaps.push(`${name}: README leaves out ${missing.join(', ')}`);
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

  it('names every field restore, undo, relink, merge (list, conflicts, undo), import and dream (status, list, revert) print, run on a real home: in their README sections and --help', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-readme-merge-')));
    const home = path.join(root, 'home');
    const printed = new Map<string, unknown[]>();
    const memdir = async (...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> => {
      let out = '';
      const env = { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root, CLAUDE_CONFIG_DIR: home };
      const code = await runCli([...args, '--json'], { out: (t) => (out += t), err: () => undefined, env, cwd: root });
      const json = JSON.parse(out) as Record<string, unknown>;
      const name = COMMANDS.map((c) => c.name)
        .filter((n) => n.every((w, i) => args[i] === w))
        .sort((a, b) => b.length - a.length)[0]!
        .join(' ');
      printed.set(name, [...(printed.get(name) ?? []), json]);
      return { code, json };
    };
    const history = async (project: string) =>
      (await memdir('history', project)).json.entries as { rev: string; source: string; summary: string; files: { path: string }[] }[];
    try {
      // A relink keeping a conflict: its preview, its record, its conflicts, its undo and the redo of that undo.
      const moved = await movedWithOneConflict(home, root);
      await addSession(home, moved.newPath);
      const orphan = sanitizeDirName(moved.oldPath);
      expect((await memdir('relink', orphan, moved.newPath)).json.applied).toBe(false);
      const relinked = await memdir('relink', orphan, moved.newPath, '--yes');
      expect(relinked.code).toBe(1);
      const id = (relinked.json.record as { id: string }).id;
      expect((await memdir('merge', 'conflicts', id)).code).toBe(1);
      expect((await memdir('merge', 'undo', id)).code).toBe(0);
      const undoEntry = (await history(orphan)).find((e) => e.summary.startsWith('Undo relink'))!;
      expect((await memdir('undo', orphan, undoEntry.rev)).code).toBe(0);
      expect((await memdir('merge', 'list')).code).toBe(0);
      // A memory edited (outside Memdir, as Claude Code edits: the restore asks, --overwrite-changed answers), then restored as it was first.
      const edited = path.join(root, 'edited');
      await makeRepo(edited, null);
      await addSession(home, edited);
      const editedMemory = await addMemories(home, edited, { 'MEMORY.md': '- [Tabs](tabs.md) — tabs\n', 'tabs.md': topic('Tabs', 'feedback', 'tabs') });
      const [first] = await history(edited);
      fs.writeFileSync(path.join(editedMemory, 'tabs.md'), topic('Tabs', 'feedback', 'spaces'));
      expect((await memdir('restore', edited, first!.rev, 'tabs.md', '--overwrite-changed')).json.restored).not.toBeNull();

      // Two clones merged: a preview and the merge.
      const { a, b } = await twoClones(path.join(root, 'clones'), home);
      await addMemories(home, a, { 'MEMORY.md': '- [Tabs](tabs.md) — tabs\n', 'tabs.md': topic('Tabs', 'feedback', 'tabs') });
      await addMemories(home, b, { 'user_me.md': topic('Me', 'user', 'me') });
      expect((await memdir('merge', sanitizeDirName(a), sanitizeDirName(b))).json.applied).toBe(false);
      expect((await memdir('merge', sanitizeDirName(a), sanitizeDirName(b), '--yes')).json.applied).toBe(true);

      // An export imported into another project: a preview and the import.
      const archive = path.join(root, 'b.tar');
      expect((await memdir('export', b, archive, '--home', home)).code).toBe(0);
      const target = path.join(root, 'q');
      await makeRepo(target, null);
      await addSession(home, target);
      await addMemories(home, target, { 'user_me.md': topic('Me', 'user', 'someone else') });
      // Another project's: a blocker previewing, a conflict kept importing anyway.
      expect((await memdir('import', archive, target, '--home', home)).code).toBe(1);
      expect((await memdir('import', archive, target, '--home', home, '--yes', '--force')).code).toBe(1);

      // A dream (offline rules): not started, a dry run, done, its status, its list, its revert.
      const dup = topic('No ORM', 'feedback', 'We write SQL by hand.');
      const dreamer = path.join(root, 'dreamer');
      await makeRepo(dreamer, null);
      await addSession(home, dreamer);
      await addMemories(home, dreamer, { 'feedback_sql.md': dup, 'feedback_sql_2.md': dup });
      expect((await memdir('dream', '--project', dreamer, '--offline')).json.status).toBe('not-started');
      expect((await memdir('dream', '--project', dreamer, '--offline', '--force', '--dry-run')).json.status).toBe('dry-run');
      expect((await memdir('dream', '--project', dreamer, '--offline', '--force')).json.status).toBe('needs-confirmation');
      const dreamt = await memdir('dream', '--project', dreamer, '--offline', '--force', '--allow-deletes');
      expect(dreamt.json.status).toBe('completed');
      await memdir('dream', 'status', '--project', dreamer);
      await memdir('dream', 'list', '--project', dreamer);
      expect((await memdir('dream', 'revert', dreamt.json.id as string)).code).toBe(0);
      await memdir('dream', 'list', '--project', dreamer);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
    const gaps: string[] = [];
    for (const name of [
      'restore',
      'undo',
      'relink',
      'merge',
      'merge list',
      'merge conflicts',
      'merge undo',
      'import',
      'dream',
      'dream status',
      'dream list',
      'dream revert',
    ]) {
      const outputs = printed.get(name);
      if (!outputs) {
        gaps.push(`${name}: not run`);
        continue;
      }
      const readme = readmeJson(name.split(' '));
      const help = helpJson(COMMANDS.find((c) => c.name.join(' ') === name)!);
      const keys = [...keysOf(outputs)];
      const notInReadme = keys.filter((key) => !readme.includes(`"${key}"`) && !readme.includes(`\`${key}\``));
      const notInHelp = keys.filter((key) => !help.includes(`"${key}"`));
      if (notInReadme.length > 0) gaps.push(`${name}: README leaves out ${notInReadme.join(', ')}`);
      if (notInHelp.length > 0) gaps.push(`${name}: --help leaves out ${notInHelp.join(', ')}`);
    }
    expect(gaps).toEqual([]);
  }, 60_000);
});
