/**
 * The Agents view's answer (`agents.list`, R-AGENT) for a sub-agent's memory: what of its
 * MEMORY.md reaches the sub-agent, as Claude Code 2.1.332 loads it (checked against the real
 * client in src/main/agents/claude-code-interop.test.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { AppContext } from '../app/app-context.js';
import { addSession } from '../relink/test-support/moved-project.js';
import { createAppDispatcher } from './index.js';
import type { Dispatcher } from './dispatch.js';

let root: string;
let home: string;
let ctx: AppContext;
let api: Dispatcher;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-api-agents-')));
  home = path.join(root, 'claude');
  await fs.mkdir(path.join(home, 'agents'), { recursive: true });
  await fs.writeFile(path.join(home, 'agents', 'helper.md'), '---\nname: helper\ndescription: helps\nmemory: user\n---\nYou help.\n');
  ctx = await AppContext.create({ homeFlag: home, dataDir: path.join(root, 'data'), env: {} });
  api = createAppDispatcher(ctx);
});
afterEach(async () => {
  await ctx.close();
  await fs.rm(root, { recursive: true, force: true });
});

type Listed = { ok: true; result: { agents: { agentType: string; scopes: { scope: string; scan: { index: Record<string, unknown> } | null }[] }[] } };

async function userIndex(text: string): Promise<Record<string, unknown>> {
  const dir = path.join(home, 'agent-memory', 'helper');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'MEMORY.md'), text);
  const listed = (await api.call('agents.list', {})) as Listed;
  return listed.result.agents.find((a) => a.agentType === 'helper')!.scopes.find((s) => s.scope === 'user')!.scan!.index;
}

describe('agents.list: a sub-agent MEMORY.md as Claude Code loads it', () => {
  it('counts its frontmatter and comments: the client loads them unstripped, so they push entries past the 200-line cut', async () => {
    const entries = Array.from({ length: 197 }, (_, i) => `- [E${i + 1}](e${i + 1}.md) — hook ${i + 1}`);
    const index = await userIndex(['---', 'name: index', '---', '<!-- kept by hand -->', ...entries].join('\n') + '\n');
    expect(index).toMatchObject({ lines: 201, loadedLines: 200, firstCutLine: 201, reason: '201 lines (limit: 200)', cut: ['e197.md'] });
  });

  it('an index within the limit only with its frontmatter stripped is cut all the same', async () => {
    const entries = Array.from({ length: 199 }, (_, i) => `- [E${i + 1}](e${i + 1}.md) — hook ${i + 1}`);
    const index = await userIndex(['---', 'name: index', '---', ...entries].join('\n'));
    expect(index).toMatchObject({ lines: 202, loadedLines: 200, firstCutLine: 201 });
    expect(index.cut).toEqual(['e198.md', 'e199.md']);
  });
});

describe('agents.list: auto memory off', () => {
  it('says no sub-agent gets its memory while autoMemoryEnabled is false, naming the setting, and loses nothing', async () => {
    const settings = path.join(home, 'settings.json');
    await fs.writeFile(settings, JSON.stringify({ autoMemoryEnabled: false }));
    const listed = (await api.call('agents.list', {})) as Listed & { result: { warnings: { code: string; message: string }[] } };
    expect(listed.result.warnings).toContainEqual({
      code: 'auto-memory-off',
      message: `Auto memory is off ("autoMemoryEnabled": false in ${settings}), so Claude Code gives no sub-agent its memory: the folders below are neither loaded nor written until it is on again.`,
    });
    // The agent and the scope its definition names are still listed.
    expect(listed.result.agents.map((a) => a.agentType)).toEqual(['helper']);
  });

  it('has no such warning while auto memory is on', async () => {
    const listed = (await api.call('agents.list', {})) as Listed & { result: { warnings: { code: string }[] } };
    expect(listed.result.warnings).toEqual([]);
  });
});

describe('agents.list for a project whose sessions start in a subdirectory', () => {
  it("shows the project and local memory of the launch directory, where Claude Code keeps it, with the root's definitions", async () => {
    const repo = path.join(root, 'repo');
    const sub = path.join(repo, 'app');
    await fs.mkdir(sub, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    await fs.mkdir(path.join(repo, '.claude', 'agents'), { recursive: true });
    await fs.writeFile(path.join(repo, '.claude', 'agents', 'rev.md'), '---\nname: reviewer\ndescription: reviews\nmemory: project\n---\nReview.\n');
    // One session, launched in app/: its transcript goes to app/'s folder, its memory is the repository's.
    await addSession(home, sub, 's1');
    await fs.mkdir(path.join(home, 'projects', sanitizeDirName(repo), 'memory'), { recursive: true });
    const listed = (await api.call('agents.list', { dir: sanitizeDirName(repo) })) as {
      ok: true;
      result: { repoRoot: string; launchDir: string | null; agents: { agentType: string; scopes: { scope: string; memoryDir: string; enabled: boolean }[] }[] };
    };
    expect(listed.result).toMatchObject({ repoRoot: repo, launchDir: sub });
    const reviewer = listed.result.agents.find((a) => a.agentType === 'reviewer')!;
    expect(reviewer.scopes.find((s) => s.enabled)).toMatchObject({ scope: 'project', memoryDir: path.join(sub, '.claude', 'agent-memory', 'reviewer') });
  });
});

describe('agents.list with CLAUDE_CODE_REMOTE_MEMORY_DIR', () => {
  it('shows user-level agent memory under that directory, where Claude Code 2.1.332 keeps it; definitions stay in the home', async () => {
    const remote = path.join(root, 'remote');
    const moved = await AppContext.create({ homeFlag: home, dataDir: path.join(root, 'data-remote'), env: { CLAUDE_CODE_REMOTE_MEMORY_DIR: remote } });
    try {
      const listed = (await createAppDispatcher(moved).call('agents.list', {})) as {
        ok: true;
        result: { agents: { agentType: string; definedIn: string[]; scopes: { scope: string; memoryDir: string }[] }[] };
      };
      expect(listed.result.agents).toMatchObject([
        {
          agentType: 'helper',
          definedIn: [path.join(home, 'agents', 'helper.md')],
          scopes: [{ scope: 'user', memoryDir: path.join(remote, 'agent-memory', 'helper') }],
        },
      ]);
    } finally {
      await moved.close();
    }
  });
});

describe('agents.list for a project launched in more than one directory', () => {
  it('names the other launch directories that hold agent memory of their own', async () => {
    const repo = path.join(root, 'multi');
    const sub = path.join(repo, 'tools');
    await fs.mkdir(sub, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    // Two sessions at the root (the main launch directory), one in tools/, which has agent memory.
    for (const id of ['a', 'b']) await addSession(home, repo, id);
    await addSession(home, sub, 'c');
    await fs.mkdir(path.join(sub, '.claude', 'agent-memory-local', 'helper'), { recursive: true });
    const listed = (await api.call('agents.list', { dir: sanitizeDirName(repo) })) as {
      ok: true;
      result: { launchDir: string; launchDirs: string[]; warnings: { code: string; file?: string; message: string }[] };
    };
    expect(listed.result.launchDir).toBe(repo);
    expect(listed.result.launchDirs).toEqual([repo, sub]);
    expect(listed.result.warnings).toContainEqual({
      code: 'other-launch-dir',
      file: path.join(sub, '.claude'),
      message: `Sessions started in ${sub} keep their own agent memory there (.claude/agent-memory-local/): Claude Code gives it only to sub-agents of sessions launched in that directory. This view shows ${repo}'s; choose the other directory above to see it.`,
    });
  });

  it('shows the agent memory of another launch directory when asked for it, and refuses one no session starts in', async () => {
    const repo = path.join(root, 'multi');
    const sub = path.join(repo, 'tools');
    await fs.mkdir(sub, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    await addSession(home, repo, 'a');
    await addSession(home, sub, 'c');
    // Most of the work is in tools/: its own agent, with local memory there.
    await fs.mkdir(path.join(sub, '.claude', 'agents'), { recursive: true });
    await fs.writeFile(path.join(sub, '.claude', 'agents', 'fixer.md'), '---\nname: fixer\ndescription: fixes\nmemory: local\n---\nFix.\n');
    await fs.mkdir(path.join(sub, '.claude', 'agent-memory-local', 'fixer'), { recursive: true });
    await fs.writeFile(path.join(sub, '.claude', 'agent-memory-local', 'fixer', 'MEMORY.md'), '- [Flaky](flaky.md) — the flaky test\n');
    type Answer = { ok: true; result: { launchDir: string; agents: { agentType: string; scopes: { scope: string; enabled: boolean; exists: boolean }[] }[] } };
    const main = (await api.call('agents.list', { dir: sanitizeDirName(repo) })) as Answer;
    expect(main.result.agents.map((a) => a.agentType)).toEqual(['helper']);
    const tools = (await api.call('agents.list', { dir: sanitizeDirName(repo), launchDir: sub })) as Answer;
    expect(tools.result.launchDir).toBe(sub);
    expect(tools.result.agents.find((a) => a.agentType === 'fixer')!.scopes.find((s) => s.scope === 'local')).toMatchObject({ enabled: true, exists: true });
    // The same directory through a symbolic link, or with a trailing slash.
    await fs.symlink(repo, path.join(root, 'link'));
    for (const launchDir of [path.join(root, 'link', 'tools'), `${sub}/`]) {
      const same = (await api.call('agents.list', { dir: sanitizeDirName(repo), launchDir })) as Answer;
      expect(same, launchDir).toEqual(tools);
    }
    const refused = await api.call('agents.list', { dir: sanitizeDirName(repo), launchDir: path.join(root, 'elsewhere') });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'invalid-input',
        message: `No session of this project starts in ${path.join(root, 'elsewhere')}, so it keeps no agent memory of this project.`,
      },
    });
  });
});
