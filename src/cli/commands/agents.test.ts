/**
 * `memdir agents`: the Agents view on the command line, from the same service (R-AGENT). A real
 * git repository with sub-agents defined at its root and in `app/`, sessions started in both (two
 * at the root, its main launch directory; one in app/), each keeping agent memory of its own.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../main.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { AppContext } from '../../main/app/app-context.js';
import { createAppDispatcher } from '../../main/api/index.js';
import { addSession } from '../../main/relink/test-support/moved-project.js';

let root: string;
let home: string;
let repo: string;
let app: string;
const env = () => ({ CLAUDE_CONFIG_DIR: home, MEMDIR_DATA_DIR: path.join(root, 'data') });

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: env(), cwd: repo });
  return { code, out, err };
}

async function write(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

const agent = (name: string, memory: string) => `---\nname: ${name}\ndescription: ${name}s\nmemory: ${memory}\n---\nYou are ${name}.\n`;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-agents-')));
  home = path.join(root, 'claude');
  repo = path.join(root, 'repo');
  app = path.join(repo, 'app');
  await fs.mkdir(app, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: repo });
  await write(path.join(home, 'agents', 'helper.md'), agent('helper', 'user'));
  // Claude Code does not load a file-defined agent named like a plugin's.
  await write(path.join(home, 'agents', 'plugged.md'), agent('tools:plugged', 'user'));
  await write(path.join(repo, '.claude', 'agents', 'reviewer.md'), agent('reviewer', 'project'));
  await write(path.join(app, '.claude', 'agents', 'fixer.md'), agent('fixer', 'local'));
  // The reviewer's memory at the root: an index with frontmatter (a sub-agent loads it unstripped) past 200 lines.
  const entries = Array.from({ length: 200 }, (_, i) => `- [R${i + 1}](r${i + 1}.md) — rule ${i + 1}`);
  await write(path.join(repo, '.claude', 'agent-memory', 'reviewer', 'MEMORY.md'), ['---', 'name: index', '---', ...entries].join('\n') + '\n');
  await write(path.join(repo, '.claude', 'agent-memory', 'reviewer', 'r1.md'), '---\nname: r1\ndescription: rule one\ntype: feedback\n---\nTabs.\n');
  // The fixer's local memory in app/, which git would commit.
  await write(path.join(app, '.claude', 'agent-memory-local', 'fixer', 'MEMORY.md'), '- [Flaky](flaky.md) — the flaky test\n');
  await write(
    path.join(app, '.claude', 'agent-memory-local', 'fixer', 'flaky.md'),
    '---\nname: flaky\ndescription: the flaky test\ntype: project\n---\nRetry it.\n',
  );
  for (const id of ['a', 'b']) await addSession(home, repo, id);
  await addSession(home, app, 'c');
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('memdir agents (text)', () => {
  it("shows the main launch directory's sub-agents: scope, folder, files, the lines it loads, and the other launch directory", async () => {
    const { code, out, err } = await run('agents', '--project', '.');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(`Sub-agents of ${repo}\nIts sessions also start in ${app} (--launch-dir DIR shows that directory's agent memory).\n`);
    expect(out).toContain(
      [
        'reviewer  project memory (committed with the repository)',
        `  defined in  ${path.join(repo, '.claude', 'agents', 'reviewer.md')}`,
        `  folder      ${path.join(repo, '.claude', 'agent-memory', 'reviewer')}`,
        '  files       1 memory; MEMORY.md 203 lines, 5,495 characters; cut at line 201: 203 lines (limit: 200) (3 pointers to missing files)',
        // Not stripped: the frontmatter is what a sub-agent reads first.
        '  loads       ---',
        '              name: index',
        '              ---',
        '              - [R1](r1.md) — rule 1',
        '              - [R2](r2.md) — rule 2',
      ].join('\n'),
    );
    expect(out).toContain(`helper  user memory (every project)\n  defined in  ${path.join(home, 'agents', 'helper.md')}\n`);
    // A definition Claude Code skips, and app/'s own agent memory, are said in words.
    expect(out).toContain('warning: This agent definition is skipped: its name "tools:plugged" holds ":", which Claude Code keeps for plugin agents');
    expect(out).toContain(`warning: Sessions started in ${app} keep their own agent memory there (.claude/agent-memory-local/)`);
    expect(out).toContain(`memdir agents --project . --launch-dir ${app} shows it.`);
    // app/'s agent is not one of the root's sessions' agents.
    expect(out).not.toContain('fixer');
  });

  it('shows the agent memory of sessions started in app/ with --launch-dir, and that git would commit its local memory', async () => {
    const { code, out } = await run('agents', '--project', repo, '--launch-dir', 'app');
    expect(code).toBe(0);
    expect(out).toContain(`Sub-agents of ${repo}, sessions started in ${app}\n`);
    expect(out).toContain(
      [
        'fixer  local memory (never committed)',
        `  defined in  ${path.join(app, '.claude', 'agents', 'fixer.md')}`,
        `  folder      ${path.join(app, '.claude', 'agent-memory-local', 'fixer')}`,
        '  files       1 memory; MEMORY.md 1 line, 36 characters, all loaded',
        '  loads       - [Flaky](flaky.md) — the flaky test',
      ].join('\n'),
    );
    // Definitions of the root reach sessions in app/, but their project memory is app/'s, not made yet.
    expect(out).toContain(
      `reviewer  project memory (committed with the repository)\n  defined in  ${path.join(repo, '.claude', 'agents', 'reviewer.md')}\n  folder      ${path.join(app, '.claude', 'agent-memory', 'reviewer')}\n  files       none yet`,
    );
    // Claude Code 2.1.332 makes the folder when it launches the sub-agent, before anything is saved
    // (test/fixtures/claude-code-agent/observed-agent.json, "created"), so Memdir says that (review s37-x6).
    expect(out).toContain('  files       none yet: Claude Code makes the folder the first time it launches the sub-agent\n');

    expect(out).toContain('warning: Local agent memory (.claude/agent-memory-local/) is not git-ignored, so it may be committed and shared.');
    expect(out).toContain(`warning: Sessions started in ${repo} keep their own agent memory there (.claude/agent-memory/)`);
  });

  it('with auto memory off says a sub-agent loads nothing of its MEMORY.md, as Claude Code 2.1.332 gives it no memory then', async () => {
    // Recorded live: observed-agent.json autoMemoryOff.withIndex — no memory section, the MEMORY.md already there not given.
    const settings = path.join(home, 'settings.json');
    await write(settings, JSON.stringify({ autoMemoryEnabled: false }));
    try {
      const { code, out } = await run('agents', '--project', repo, '--launch-dir', 'app');
      expect(code).toBe(0);
      expect(out).toContain(`warning: Auto memory is off ("autoMemoryEnabled": false in ${settings})`);
      expect(out).toContain(
        [
          `  folder      ${path.join(app, '.claude', 'agent-memory-local', 'fixer')}`,
          '  files       1 memory; MEMORY.md 1 line, 36 characters, not loaded: auto memory is off',
          '  loads       nothing: auto memory is off, so Claude Code gives the sub-agent no memory',
        ].join('\n'),
      );
      expect(out).not.toContain('loads       - [Flaky]');
      // Nor does it make a folder (observed-agent.json: autoMemoryOff.created false).
      expect(out).toContain(
        `  folder      ${path.join(app, '.claude', 'agent-memory', 'reviewer')}\n  files       none: with auto memory off Claude Code does not make this folder\n`,
      );
      expect(out).not.toContain('all loaded');
    } finally {
      await fs.rm(settings);
    }
  });

  it('names an agent whose name holds a line break on one line, the break shown as \\u000a (review s37-x6)', async () => {
    // Claude Code 2.1.332 runs a sub-agent named "two\nlines" (its folder: two-lines); its block must stay one block.
    const file = path.join(home, 'agents', 'two-lines.md');
    await write(file, '---\nname: "two\\nlines"\ndescription: d\nmemory: user\n---\nYou help.\n');
    try {
      const { out } = await run('agents');
      expect(out).toContain(
        `\ntwo\\u000alines  user memory (every project)\n  defined in  ${file}\n  folder      ${path.join(home, 'agent-memory', 'two-lines')}\n`,
      );
    } finally {
      await fs.rm(file);
    }
  });

  it('says Claude Code does not read a project MEMORY.md that is a link, and that the sub-agent is told to write nothing there', async () => {
    const file = path.join(repo, '.claude', 'agents', 'linker.md');
    const dir = path.join(repo, '.claude', 'agent-memory', 'linker');
    const local = path.join(repo, '.claude', 'agents', 'farther.md');
    await write(file, agent('linker', 'project'));
    await write(path.join(repo, 'docs', 'index.md'), '- [A](a.md) — shared by link\n');
    await fs.mkdir(dir, { recursive: true });
    await fs.symlink(path.join(repo, 'docs', 'index.md'), path.join(dir, 'MEMORY.md'));
    try {
      const { code, out } = await run('agents', '--project', '.');
      expect(code).toBe(0);
      expect(out).toContain(
        [
          'linker  project memory (committed with the repository)',
          `  defined in  ${file}`,
          `  folder      ${dir}`,
          '  files       0 memories; MEMORY.md not read by Claude Code: it is a symbolic link, and in project memory only a plain file is read',
          '  loads       nothing of MEMORY.md: the sub-agent is told it was not loaded, and to write nothing in this folder',
        ].join('\n'),
      );
      expect(out).toContain(
        `warning: Claude Code does not read the MEMORY.md of sub-agent "linker": it is a symbolic link, and in project memory only a plain file is read. The sub-agent is told its memory was not loaded and to treat it as read-only, writing nothing in its folder. Put the file itself in place of the link.\n         (${path.join(dir, 'MEMORY.md')})\n`,
      );
      const json = JSON.parse((await run('agents', '--project', '.', '--json')).out) as { warnings: { code: string; file?: string }[] };
      expect(json.warnings.filter((w) => w.code === 'agent-index-not-read').map((w) => w.file)).toEqual([path.join(dir, 'MEMORY.md')]);
      // A local memory root linked out of the working copy: Claude Code does not even make the folder (2.1.332, live).
      await write(local, agent('farther', 'local'));
      await fs.mkdir(path.join(root, 'elsewhere'), { recursive: true });
      await fs.symlink(path.join(root, 'elsewhere'), path.join(repo, '.claude', 'agent-memory-local'));
      const linkedOut = (await run('agents', '--project', '.')).out;
      expect(linkedOut).toContain(
        `farther  local memory (never committed)\n  defined in  ${local}\n  folder      ${path.join(repo, '.claude', 'agent-memory-local', 'farther')}\n  files       none: Claude Code neither makes nor reads this folder: its folder leads out of ${repo} through a symbolic link\n`,
      );
    } finally {
      await fs.rm(file);
      await fs.rm(local, { force: true });
      await fs.rm(path.join(repo, '.claude', 'agent-memory-local'), { force: true });
      await fs.rm(dir, { recursive: true });
    }
  });

  it('without --project shows the user-level agents only, and says so', async () => {
    const { code, out } = await run('agents');
    expect(code).toBe(0);
    expect(out).toMatch(/^User-level sub-agents \(give --project to see a project’s too\):\n/);
    expect(out).toContain('helper  user memory (every project)');
    expect(out).not.toContain('reviewer');
  });
});

/**
 * A sub-agent transcript as Claude Code 2.1.332 writes it (`<session>/subagents/agent-<id>.jsonl`):
 * its `prompt_snapshot` record, recorded from the real client (test/fixtures/claude-code-agent/
 * prompt-snapshot.jsonl, its guidance cut for size), given `memoryDir` and the index `text`.
 */
async function addSubAgentTranscript(sessionFolder: string, sessionId: string, memoryDir: string, text: string): Promise<void> {
  const recorded = await fs.readFile(path.resolve(__dirname, '../../../test/fixtures/claude-code-agent/prompt-snapshot.jsonl'), 'utf8');
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const line = recorded.replace('$MARKER', 'MARKER-0').replace('$MEMORY_DIR', json(memoryDir)).replace('$INDEX', json(text)).replace('$REPO', json(repo));
  await write(
    path.join(home, 'projects', sessionFolder, sessionId, 'subagents', 'agent-a1.jsonl'),
    `{"type":"user","isSidechain":true,"sessionId":"${sessionId}"}\n${line}`,
  );
}

describe('memdir agents: what a sub-agent was last given', () => {
  it('reads it from the sub-agent transcript, and says when MEMORY.md changed since', async () => {
    const fixer = path.join(app, '.claude', 'agent-memory-local', 'fixer');
    // A fixer of the session in app/ was given the index as it is now.
    await addSubAgentTranscript(sanitizeDirName(app), 'c', fixer, '- [Flaky](flaky.md) — the flaky test');
    const now = await run('agents', '--project', repo, '--launch-dir', app);
    expect(now.out).toContain('  last given  1 line at 2026-12-06T07:47:37.532Z (session c): the same as it loads now\n');
    // A reviewer of a root session was given an older index.
    const reviewer = path.join(repo, '.claude', 'agent-memory', 'reviewer');
    await addSubAgentTranscript(sanitizeDirName(repo), 'a', reviewer, '- [Old](old.md) — an older rule');
    const json = JSON.parse((await run('agents', '--project', repo, '--json')).out) as {
      agents: { agentType: string; scopes: { scope: string; lastInjected: unknown }[] }[];
    };
    const project = json.agents.find((a) => a.agentType === 'reviewer')!.scopes.find((s) => s.scope === 'project')!;
    expect(project.lastInjected).toEqual({ text: '- [Old](old.md) — an older rule', at: '2026-12-06T07:47:37.532Z', sessionId: 'a' });
    expect((await run('agents', '--project', repo)).out).toContain(
      '  last given  1 line at 2026-12-06T07:47:37.532Z (session a): not what it loads now: MEMORY.md changed since\n',
    );
  });
});

describe('memdir agents --json', () => {
  it('prints what the app gets from agents.list for the same project and launch directory', async () => {
    const ctx = await AppContext.create({ homeFlag: home, dataDir: path.join(root, 'data-app'), env: {} });
    try {
      const api = createAppDispatcher(ctx);
      const dir = sanitizeDirName(repo);
      for (const [argv, input] of [
        [[], {}],
        [['--project', dir], { dir }],
        [['--project', dir, '--launch-dir', app], { dir, launchDir: app }],
      ] as const) {
        const answer = await api.call('agents.list', input);
        expect(answer.ok).toBe(true);
        const { code, out } = await run('agents', ...argv, '--json');
        expect(code).toBe(0);
        // Byte for byte: the same fields in the same order.
        expect(out).toBe(`${JSON.stringify((answer as { result: unknown }).result, null, 2)}\n`);
      }
    } finally {
      await ctx.close();
    }
  });
});

describe('memdir agents --launch-dir through a symbolic link or with a trailing slash', () => {
  it('names the same launch directory as its real path, as --project through the link does', async () => {
    const link = path.join(root, 'link-to-repo');
    await fs.symlink(repo, link);
    try {
      const real = await run('agents', '--project', repo, '--launch-dir', app, '--json');
      expect(real.code).toBe(0);
      for (const asked of [path.join(link, 'app'), `${app}/`, `${path.join(link, 'app')}/`, 'app/']) {
        const { code, out, err } = await run('agents', '--project', repo, '--launch-dir', asked, '--json');
        expect(err, asked).toBe('');
        expect(code, asked).toBe(0);
        // The directory the sessions were recorded in, and the same answer.
        expect(out, asked).toBe(real.out);
      }
      expect((await run('agents', '--project', link, '--launch-dir', link, '--json')).out).toBe((await run('agents', '--project', repo, '--json')).out);
    } finally {
      await fs.rm(link);
    }
  });
});

describe('memdir agents: bad input', () => {
  it('refuses a launch directory no session of the project starts in, in one sentence, exit 2', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    const { code, out, err } = await run('agents', '--project', repo, '--launch-dir', elsewhere);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`memdir agents: No session of this project starts in ${elsewhere}, so it keeps no agent memory of this project.\n`);
  });

  it('refuses an unknown project, exit 2', async () => {
    const { code, err } = await run('agents', '--project', 'no-such-project');
    expect(code).toBe(2);
    expect(err).toBe(
      `memdir agents: There is no project "no-such-project" under ${path.join(home, 'projects')}, and no directory of that name: give a project directory, or one of the names \`memdir scan\` lists.\n`,
    );
  });

  it('refuses --launch-dir without --project, or empty, pointing to --help', async () => {
    expect(await run('agents', '--launch-dir', app)).toMatchObject({
      code: 2,
      err: "memdir agents: --launch-dir goes with --project: it is one of the directories that project's sessions start in. Run `memdir agents --help`.\n",
    });
    expect(await run('agents', '--project', repo, '--launch-dir', ' ')).toMatchObject({
      code: 2,
      err: "memdir agents: --launch-dir is empty: give one of the directories the project's sessions start in. Run `memdir agents --help`.\n",
    });
  });
});
