import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isolatedGitEnv } from '../memdir/run-git.js';
import { AGENT_INDEX_NOT_READ_SENTENCE, agentTypeDirName, historyCheckCache, listAgentMemories, type AgentMemory } from './agent-memory.js';
import { loadedAgentIndexText } from './list-agents.js';

const gitEnv = { ...isolatedGitEnv(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: gitEnv, stdio: 'pipe' }).toString();
}

let tmp: string;
let home: string;
let repo: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-agents-')));
  // A Claude home that is not ~/.claude (CLAUDE_CONFIG_DIR), to show `<home>` is what counts.
  home = path.join(tmp, 'claude-config');
  repo = path.join(tmp, 'repo');
  await fs.mkdir(repo);
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function agentFile(dir: string, name: string, text: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  await fs.writeFile(file, text);
  return file;
}
const userAgents = () => path.join(home, 'agents');
const projectAgents = () => path.join(repo, '.claude', 'agents');
const definition = (fields: string) => `---\n${fields}\ndescription: Reviews code\n---\nYou are a reviewer.\n`;
const byType = (agents: AgentMemory[], type: string) => agents.find((a) => a.agentType === type)!;
const enabledScopes = (agent: AgentMemory) => agent.scopes.filter((s) => s.enabled).map((s) => s.scope);

describe('listAgentMemories (R-AGENT)', () => {
  it('finds nothing in an empty or missing home', async () => {
    expect(await listAgentMemories(path.join(tmp, 'missing'), null)).toEqual({ agents: [], warnings: [] });
    expect(await listAgentMemories(home, repo)).toEqual({ agents: [], warnings: [] });
  });

  it('gives a user-level agent the user scope under the Claude home', async () => {
    const file = await agentFile(userAgents(), 'reviewer.md', definition('name: reviewer\nmemory: user'));
    const { agents, warnings } = await listAgentMemories(home, null);
    expect(warnings).toEqual([]);
    expect(agents).toEqual([
      {
        agentType: 'reviewer',
        definedIn: [file],
        scopes: [{ scope: 'user', memoryDir: path.join(home, 'agent-memory', 'reviewer'), exists: false, enabled: true }],
      },
    ]);
    await fs.mkdir(path.join(home, 'agent-memory', 'reviewer'), { recursive: true });
    expect((await listAgentMemories(home, null)).agents[0]!.scopes[0]!.exists).toBe(true);
  });

  it('lists all three scopes with a repository, enabling the one the agent names', async () => {
    await agentFile(projectAgents(), 'planner.md', definition('name: planner\nmemory: project'));
    await agentFile(projectAgents(), 'scratch.md', definition("name: scratch\nmemory: 'local'"));
    await fs.mkdir(path.join(repo, '.claude', 'agent-memory', 'planner'), { recursive: true });
    const { agents } = await listAgentMemories(home, repo);
    const planner = byType(agents, 'planner');
    expect(planner.scopes).toEqual([
      { scope: 'user', memoryDir: path.join(home, 'agent-memory', 'planner'), exists: false, enabled: false },
      { scope: 'project', memoryDir: path.join(repo, '.claude', 'agent-memory', 'planner'), exists: true, enabled: true },
      { scope: 'local', memoryDir: path.join(repo, '.claude', 'agent-memory-local', 'planner'), exists: false, enabled: false },
    ]);
    expect(enabledScopes(byType(agents, 'scratch'))).toEqual(['local']);
  });

  it('lists an agent without memory with no scope enabled', async () => {
    await agentFile(userAgents(), 'plain.md', definition('name: plain'));
    const { agents, warnings } = await listAgentMemories(home, repo);
    expect(warnings).toEqual([]);
    expect(enabledScopes(byType(agents, 'plain'))).toEqual([]);
  });

  it('does not guess a scope for memory: true, and says so', async () => {
    const file = await agentFile(userAgents(), 'vague.md', definition('name: vague\nmemory: true'));
    const { agents, warnings } = await listAgentMemories(home, repo);
    expect(enabledScopes(byType(agents, 'vague'))).toEqual([]);
    expect(warnings).toEqual([
      {
        code: 'bad-memory-field',
        file,
        message: 'memory: true is not a scope, so agent "vague" has no memory; use user, project or local.',
      },
    ]);
  });

  it('quotes an agent name holding a line break on one line in its warning (review s37-x6, F4)', async () => {
    // Claude Code 2.1.332 runs a sub-agent named "two\nlines"; a warning about it must stay one line.
    const file = await agentFile(userAgents(), 'two-lines.md', definition('name: "two\\nlines"\nmemory: true'));
    const { warnings } = await listAgentMemories(home, repo);
    expect(warnings).toEqual([
      {
        code: 'bad-memory-field',
        file,
        message: 'memory: true is not a scope, so agent "two\\u000alines" has no memory; use user, project or local.',
      },
    ]);
  });

  it('lets a project definition override a user one of the same name', async () => {
    const userFile = await agentFile(userAgents(), 'reviewer.md', definition('name: reviewer\nmemory: user'));
    const projectFile = await agentFile(projectAgents(), 'review.md', definition('name: reviewer\nmemory: project'));
    const { agents } = await listAgentMemories(home, repo);
    expect(agents).toHaveLength(1);
    expect(agents[0]!.definedIn).toEqual([userFile, projectFile]);
    expect(enabledScopes(agents[0]!)).toEqual(['project']);
  });

  it('includes agent types that only have memory directories on disk', async () => {
    await fs.mkdir(path.join(home, 'agent-memory', 'retired'), { recursive: true });
    await fs.mkdir(path.join(repo, '.claude', 'agent-memory-local', 'ghost'), { recursive: true });
    await fs.writeFile(path.join(home, 'agent-memory', 'stray-file.md'), 'x');
    const { agents } = await listAgentMemories(home, repo);
    expect(agents.map((a) => [a.agentType, a.definedIn, a.scopes.filter((s) => s.exists).map((s) => s.scope)])).toEqual([
      ['ghost', [], ['local']],
      ['retired', [], ['user']],
    ]);
  });

  it('lists an agent memory folder that is a symbolic link, as Claude Code loads a user-level one through it; not one whose name is not UTF-8', async () => {
    // Kept in a dotfiles checkout and linked into the Claude home (claude-code-interop.test.ts: the sub-agent loads it).
    const kept = path.join(tmp, 'dotfiles', 'reviewer');
    await fs.mkdir(kept, { recursive: true });
    await fs.writeFile(path.join(kept, 'MEMORY.md'), '- terse reviews\n');
    await fs.mkdir(path.join(home, 'agent-memory'), { recursive: true });
    await fs.symlink(kept, path.join(home, 'agent-memory', 'reviewer'));
    // No agent's folder has such a name (Claude Code names them [A-Za-z0-9_-]); read as text it would be another folder.
    await fs.mkdir(Buffer.concat([Buffer.from(path.join(home, 'agent-memory', 'caf')), Buffer.from([0xe9])]));
    const { agents } = await listAgentMemories(home, repo);
    expect(agents.map((a) => [a.agentType, a.scopes.filter((s) => s.exists).map((s) => s.scope)])).toEqual([['reviewer', ['user']]]);
  });

  it('names the memory directory as Claude Code 2.1.332 does: every character outside [A-Za-z0-9_-] becomes "-"', async () => {
    // Observed with the real client (test/fixtures/claude-code-agent/observed-agent.json).
    const names: [string, string][] = [
      ['my-helper', 'my-helper'],
      ['my_helper', 'my_helper'],
      ['MyHelper', 'MyHelper'],
      ['A-B_c9', 'A-B_c9'],
      ['with space', 'with-space'],
      ['dots.x', 'dots-x'],
      ['\u00dcn\u00ef', '-n-'],
      ['a\u{1F600}b', 'a--b'],
      ['x/y', 'x-y'],
      ['..', '--'],
      // Not trimmed: the client names the folder from the name as written (review, live).
      ['  padded  ', '--padded--'],
    ];
    for (const [name, dir] of names) expect(agentTypeDirName(name)).toBe(dir);
    for (const [i, [name]] of names.entries()) await agentFile(userAgents(), `a${i}.md`, definition(`name: ${JSON.stringify(name)}\nmemory: user`));
    await fs.mkdir(path.join(home, 'agent-memory', 'with-space'), { recursive: true });
    const { agents, warnings } = await listAgentMemories(home, null);
    expect(warnings).toEqual([]);
    // Every one is an agent the client runs, its memory confined to the root by the name mapping.
    expect(agents.map((a) => [a.agentType, a.scopes[0]!.memoryDir]).sort()).toEqual(
      names.map(([name, dir]) => [name, path.join(home, 'agent-memory', dir)]).sort(),
    );
    // A directory on disk is matched to the agent whose name maps to it, not listed again.
    expect(byType(agents, 'with space').scopes[0]!.exists).toBe(true);
    expect(agents.some((a) => a.agentType === 'with-space')).toBe(false);
  });

  it('warns when two sub-agents share one memory folder because their names map to the same directory name, as Claude Code gives them', async () => {
    // Observed with the real client 2.1.332 (review s37-x6): "日本語" and "中文字" both load
    // `.claude/agent-memory/---`, "a b" and "a-b" both `a-b`, each reading the other's MEMORY.md.
    git(repo, 'init', '-q');
    await agentFile(projectAgents(), 'ja.md', definition('name: 日本語\nmemory: project'));
    await agentFile(projectAgents(), 'zh.md', definition('name: 中文字\nmemory: project'));
    await agentFile(userAgents(), 'ab.md', definition('name: a b\nmemory: user'));
    await agentFile(projectAgents(), 'a-b.md', definition('name: a-b\nmemory: user'));
    // Same directory name, different scopes: different folders, nothing shared.
    await agentFile(projectAgents(), 'x.md', definition('name: x.y\nmemory: local'));
    await agentFile(projectAgents(), 'y.md', definition('name: x y\nmemory: project'));
    const { warnings } = await listAgentMemories(home, repo);
    const shared = path.join(repo, '.claude', 'agent-memory', '---');
    expect(warnings.filter((w) => w.code === 'shared-memory-folder')).toEqual([
      {
        code: 'shared-memory-folder',
        file: path.join(home, 'agent-memory', 'a-b'),
        message: `Sub-agents "a b" and "a-b" share one memory folder, ${path.join(home, 'agent-memory', 'a-b')}: Claude Code turns every character of a name other than A–Z, a–z, 0–9, "_" and "-" into "-", so each reads and writes the others' memories. Rename all but one of them to keep their memories apart.`,
      },
      {
        code: 'shared-memory-folder',
        file: shared,
        message: `Sub-agents "中文字" and "日本語" share one memory folder, ${shared}: Claude Code turns every character of a name other than A–Z, a–z, 0–9, "_" and "-" into "-", so each reads and writes the others' memories. Rename all but one of them to keep their memories apart.`,
      },
    ]);
  });

  it('skips a definition whose name holds ":" (Claude Code does not load it: that form is for plugin agents), and says so', async () => {
    const file = await agentFile(userAgents(), 'p.md', definition('name: "myplugin:helper"\nmemory: user'));
    const { agents, warnings } = await listAgentMemories(home, null);
    expect(agents).toEqual([]);
    expect(warnings).toEqual([
      {
        code: 'bad-agent-file',
        file,
        message:
          'This agent definition is skipped: its name "myplugin:helper" holds ":", which Claude Code keeps for plugin agents (plugin:agent), so it does not load this file.',
      },
    ]);
    // A plugin agent's memory folder on disk is still named as the client names it.
    expect(agentTypeDirName('myplugin:helper')).toBe('myplugin-helper');
  });

  it('takes memory only when the field is exactly a scope name, as Claude Code does', async () => {
    const file = await agentFile(userAgents(), 'spaced.md', definition('name: spaced\nmemory: " local "'));
    await agentFile(userAgents(), 'cased.md', definition('name: cased\nmemory: Project'));
    const { agents, warnings } = await listAgentMemories(home, repo);
    expect(enabledScopes(byType(agents, 'spaced'))).toEqual([]);
    expect(enabledScopes(byType(agents, 'cased'))).toEqual([]);
    expect(warnings.find((w) => w.file === file)?.message).toBe(
      'memory: " local " is not a scope, so agent "spaced" has no memory; use user, project or local.',
    );
  });

  it('finds definitions in subfolders and tolerates CRLF and a BOM', async () => {
    await agentFile(path.join(userAgents(), 'team', 'qa'), 'tester.md', '\uFEFF---\r\nname: tester\r\nmemory: user\r\n---\r\nbody\r\n');
    const { agents, warnings } = await listAgentMemories(home, null);
    expect(warnings).toEqual([]);
    expect(enabledScopes(byType(agents, 'tester'))).toEqual(['user']);
  });

  it('reads name and memory even when a description is not valid YAML', async () => {
    await agentFile(userAgents(), 'loose.md', '---\nname: loose\ndescription: Use this agent when: the user asks: "review"\nmemory: user\n---\n');
    const { agents, warnings } = await listAgentMemories(home, null);
    expect(warnings).toEqual([]);
    expect(enabledScopes(byType(agents, 'loose'))).toEqual(['user']);
  });

  it('reports bad agent files instead of throwing', async () => {
    const noFrontmatter = await agentFile(userAgents(), 'a-none.md', '# just markdown\n');
    const noName = await agentFile(userAgents(), 'b-noname.md', definition('memory: user'));
    const badYaml = await agentFile(userAgents(), 'c-yaml.md', '---\n: : :\n  - [\n---\n');
    await agentFile(userAgents(), 'd-escape.md', definition('name: ../../.ssh\nmemory: user'));
    const empty = await agentFile(userAgents(), 'e-empty.md', '');
    await fs.mkdir(path.join(userAgents(), 'f-dir.md'));
    await agentFile(userAgents(), 'good.md', definition('name: good\nmemory: user'));
    await agentFile(userAgents(), 'notes.txt', 'name: ignored');
    const { agents, warnings } = await listAgentMemories(home, null);
    // A name with path characters is still an agent: its directory name cannot leave the root.
    expect(agents.map((a) => [a.agentType, a.scopes[0]!.memoryDir])).toEqual([
      ['../../.ssh', path.join(home, 'agent-memory', '-------ssh')],
      ['good', path.join(home, 'agent-memory', 'good')],
    ]);
    expect(warnings.map((w) => [w.code, w.file])).toEqual([
      ['bad-agent-file', noFrontmatter],
      ['bad-agent-file', noName],
      ['bad-agent-file', badYaml],
      ['bad-agent-file', empty],
    ]);
    expect(warnings[0]!.message).toBe('This agent definition is skipped: it has no YAML frontmatter (a block between --- lines at the top).');
    expect(warnings[1]!.message).toMatch(/no `name`/);
    expect(warnings[2]!.message).toMatch(/not valid YAML, line 2: [^()]+\.$/);
    expect(warnings[2]!.message).not.toMatch(/column/);
  });

  describe('a session launched below the repository root or in a linked worktree (Claude Code 2.1.332)', () => {
    it('keeps project and local memory in the launch directory, and reads definitions from there up to the git root, the nearest first', async () => {
      git(repo, 'init', '-q');
      const sub = path.join(repo, 'pkg', 'app');
      await fs.mkdir(sub, { recursive: true });
      const rootFile = await agentFile(projectAgents(), 'r.md', definition('name: shared\nmemory: project'));
      const subFile = await agentFile(path.join(repo, 'pkg', '.claude', 'agents'), 's.md', definition('name: shared\nmemory: local'));
      await agentFile(path.join(repo, '.claude', 'agents'), 'o.md', definition('name: onlyroot\nmemory: project'));
      // Above the git root: not read.
      await agentFile(path.join(tmp, '.claude', 'agents'), 'a.md', definition('name: above\nmemory: project'));
      const { agents } = await listAgentMemories(home, sub, repo);
      expect(agents.map((a) => a.agentType)).toEqual(['onlyroot', 'shared']);
      const shared = byType(agents, 'shared');
      expect(shared.definedIn).toEqual([subFile, rootFile]);
      expect(shared.scopes.find((s) => s.enabled)!.memoryDir).toBe(path.join(sub, '.claude', 'agent-memory-local', 'shared'));
      expect(byType(agents, 'onlyroot').scopes.find((s) => s.enabled)!.memoryDir).toBe(path.join(sub, '.claude', 'agent-memory', 'onlyroot'));
    });

    it("in a linked worktree, reads the main repository's definitions too and keeps the memory in the worktree", async () => {
      git(repo, 'init', '-q');
      git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'init');
      const worktree = path.join(tmp, 'wt');
      git(repo, 'worktree', 'add', '-q', worktree);
      await agentFile(projectAgents(), 'm.md', definition('name: mainonly\nmemory: project'));
      const { agents } = await listAgentMemories(home, worktree, repo);
      expect(byType(agents, 'mainonly').scopes.find((s) => s.enabled)!.memoryDir).toBe(path.join(worktree, '.claude', 'agent-memory', 'mainonly'));
    });
  });

  describe('local agent memory and git', () => {
    const localWarnings = async () => (await listAgentMemories(home, repo)).warnings.filter((w) => w.code === 'local-not-ignored');

    it('warns when local memory is in use and not git-ignored', async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'scratch.md', definition('name: scratch\nmemory: local'));
      const warnings = await localWarnings();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/not git-ignored/);
      expect(warnings[0]!.file).toBe(path.join(repo, '.claude/agent-memory-local/'));
    });

    it('warns when the local memory directory exists and is not git-ignored', async () => {
      git(repo, 'init', '-q');
      await fs.mkdir(path.join(repo, '.claude', 'agent-memory-local', 'x'), { recursive: true });
      expect(await localWarnings()).toHaveLength(1);
    });

    it.each(['.claude/agent-memory-local/', 'agent-memory-local', '.claude/', '/.claude/agent-memory-local/*'])(
      'does not warn when .gitignore has %j',
      async (pattern) => {
        git(repo, 'init', '-q');
        await fs.writeFile(path.join(repo, '.gitignore'), `${pattern}\n`);
        await agentFile(projectAgents(), 'scratch.md', definition('name: scratch\nmemory: local'));
        expect(await localWarnings()).toEqual([]);
      },
    );

    it('warns when local memory is ignored but already committed', async () => {
      git(repo, 'init', '-q');
      const file = path.join(repo, '.claude', 'agent-memory-local', 'scratch', 'MEMORY.md');
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, '- [x](x.md)\n');
      git(repo, 'add', '.claude');
      await fs.writeFile(path.join(repo, '.gitignore'), '.claude/agent-memory-local/\n');
      const warnings = await localWarnings();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/1 file is already committed/);
    });

    it('does not warn outside git', async () => {
      await agentFile(projectAgents(), 'scratch.md', definition('name: scratch\nmemory: local'));
      expect(await localWarnings()).toEqual([]);
    });

    it('does not warn when nothing uses local memory', async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'planner.md', definition('name: planner\nmemory: project'));
      expect(await localWarnings()).toEqual([]);
    });
  });

  // Session 41 (every way a secret leaves): project agent memory is committed and pushed with the
  // repository — a way off the machine Memdir never runs, so it names each secret there, as written
  // by a sub-agent (not through Memdir).
  describe('a secret in agent memory git commits', () => {
    // Assembled at run time, so this file holds no token.
    const token = `ghp_${'R8kq2Lw9Zx4Tn7Vb3Mc6Pd1Hs5Jf0Ya2Ge8U'}`;
    const secretWarnings = async () => (await listAgentMemories(home, repo)).warnings.filter((w) => w.code === 'secret-in-committed-memory');
    const memory = async (folder: string, name: string, text: string) => {
      const file = path.join(repo, '.claude', folder, name);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, text);
      return file;
    };

    it('names a secret in project agent memory, masked, and says to remove it before committing', async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
      await memory('agent-memory', 'deployer/reference_ci.md', `---\nname: ci\ndescription: CI bot\ntype: reference\n---\n\nBot token: ${token}\n`);
      const warnings = await secretWarnings();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toBe(
        '.claude/agent-memory/deployer/reference_ci.md holds a GitHub token (ghp_************) at line 7. Project agent memory is committed and shared through git, so a push sends it off this machine. Remove or redact it before you commit.',
      );
      expect(JSON.stringify(warnings)).not.toContain(token);
    });

    it('once the file is committed, says that git history keeps the secret: revoke it; a token in a name is masked there too', async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
      await memory('agent-memory', `deployer/reference_${token}.md`, 'The token is the name.\n');
      git(repo, 'add', '.claude');
      git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'agent memory');
      const [warning, ...rest] = await secretWarnings();
      expect(rest).toEqual([]);
      expect(warning!.message).toMatch(/^\.claude\/agent-memory\/deployer\/reference_ghp_\*{12}\.md holds a GitHub token \(ghp_\*{12}\) in its name\./);
      expect(warning!.message).toMatch(/committed already: removing the secret now leaves it in git's history, so revoke it/);
      expect(JSON.stringify(warning)).not.toContain(token);
    });

    it('covers local agent memory only when git would commit it, and says nothing outside git or of user memory', async () => {
      await agentFile(projectAgents(), 'scratch.md', definition('name: scratch\nmemory: local'));
      await memory('agent-memory-local', 'scratch/notes.md', `token ${token}\n`);
      await memory('agent-memory', 'other/notes.md', `token ${token}\n`);
      await fs.mkdir(path.join(home, 'agent-memory', 'scratch'), { recursive: true });
      await fs.writeFile(path.join(home, 'agent-memory', 'scratch', 'notes.md'), `token ${token}\n`);
      expect(await secretWarnings()).toEqual([]);
      git(repo, 'init', '-q');
      expect((await secretWarnings()).map((w) => w.file)).toEqual([
        path.join(repo, '.claude/agent-memory/other/notes.md'),
        path.join(repo, '.claude/agent-memory-local/scratch/notes.md'),
      ]);
      await fs.writeFile(path.join(repo, '.gitignore'), '.claude/agent-memory-local/\n');
      expect((await secretWarnings()).map((w) => w.file)).toEqual([path.join(repo, '.claude/agent-memory/other/notes.md')]);
    });

    // Session 42: a secret removed from the file (or the file deleted) after it was committed is
    // still in git's history — read with `git log -p`, never rewritten.
    const historyWarnings = async () => (await listAgentMemories(home, repo)).warnings.filter((w) => w.code === 'secret-in-git-history');
    const commit = (message: string) => {
      git(repo, 'add', '-A', '.claude');
      git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', message);
      return git(repo, 'rev-parse', '--short=7', 'HEAD').trim();
    };

    it('says a secret removed from a committed file is still in its folder git history, masked, with the commit: revoke it', async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
      const file = await memory(
        'agent-memory',
        'deployer/reference_ci.md',
        `---\nname: ci\ndescription: CI bot\ntype: reference\n---\n\nBot token: ${token}\n`,
      );
      const added = commit('agent memory');
      await fs.writeFile(file, '---\nname: ci\ndescription: CI bot\ntype: reference\n---\n\nBot token: in the vault.\n');
      expect(await secretWarnings()).toEqual([]);
      // Not committed yet, and committed: either way the old commit keeps it.
      const expected = [
        {
          code: 'secret-in-git-history',
          file,
          message: `.claude/agent-memory/deployer/reference_ci.md held a GitHub token (ghp_************) at line 7 of commit ${added}. The file no longer holds it, but this folder's git history does: anyone with the repository can read it, and a push sends it off this machine. Revoke it (Memdir never rewrites history).`,
        },
      ];
      expect(await historyWarnings()).toEqual(expected);
      commit('token out');
      const warnings = await historyWarnings();
      expect(warnings).toEqual(expected);
      expect(JSON.stringify(warnings)).not.toContain(token);
    });

    it("keeps no secret's text in the app's memory between listings: what it keeps of each is its fingerprint, and it still tells a secret gone from one still held (session 44)", async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
      const file = await memory('agent-memory', 'deployer/reference_ci.md', `Bot token: ${token}\n`);
      const named = await memory('agent-memory', `deployer/notes/reference_${token}.md`, 'The token is the name.\n');
      commit('agent memory');
      await fs.writeFile(file, 'Bot token: in the vault.\n');
      const renamed = path.join(path.dirname(named), 'reference_bot.md');
      await fs.rename(named, renamed);
      const maskedNamed = path.join(path.dirname(named), 'reference_ghp_************.md');
      expect((await historyWarnings()).map((w) => w.file).sort()).toEqual([file, maskedNamed].sort());
      const kept = JSON.stringify(await historyCheckCache());
      expect(kept).toContain('GitHub token');
      // Not the token, nor any 12 characters of it: more than its mask shows (ghp_).
      for (let i = 0; i + 12 <= token.length; i++) expect(kept).not.toContain(token.slice(i, i + 12));
      // Put back, among other text, and the old name back: held again, so no history warning (the same cache, no new commit).
      await fs.writeFile(file, `Notes first.\nBot token: ${token}\n`);
      await fs.rename(renamed, named);
      expect(await historyWarnings()).toEqual([]);
      // A token that only starts the same way is not the one that was committed.
      await fs.writeFile(file, `Bot token: ${token.slice(0, -1)}X\n`);
      expect((await historyWarnings()).map((w) => w.file)).toEqual([file]);
    });

    it('with a fingerprint key that cannot be read (junk in the key file), still tells a secret held from one gone (review s44 #1)', async () => {
      const dataDir = path.join(tmp, 'data');
      await fs.mkdir(path.join(dataDir, 'secrets'), { recursive: true });
      await fs.writeFile(path.join(dataDir, 'secrets', 'fingerprint.key'), 'not a key\n');
      const saved = process.env.MEMDIR_DATA_DIR;
      process.env.MEMDIR_DATA_DIR = dataDir;
      try {
        git(repo, 'init', '-q');
        await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
        const held = await memory('agent-memory', 'deployer/ref.md', `Bot token: ${token}\n`);
        const named = await memory('agent-memory', `deployer/reference_${token}.md`, 'The token is the name.\n');
        const gone = await memory('agent-memory', 'deployer/old.md', `token ${token}\n`);
        commit('agent memory');
        await fs.rm(gone);
        // Still held in ref.md and in the name: told as in the file, not as only in history.
        expect((await historyWarnings()).map((w) => w.file)).toEqual([gone]);
        expect((await secretWarnings()).map((w) => w.file).sort()).toEqual([held, path.join(path.dirname(named), 'reference_ghp_************.md')].sort());
      } finally {
        process.env.MEMDIR_DATA_DIR = saved;
      }
    });

    it('in a launch directory below the repository root, names the file where it is and tells a secret still held from one gone (review s44 #5)', async () => {
      git(repo, 'init', '-q');
      const sub = path.join(repo, 'sub');
      await agentFile(path.join(sub, '.claude', 'agents'), 'deployer.md', definition('name: deployer\nmemory: project'));
      const dir = path.join(sub, '.claude', 'agent-memory', 'deployer');
      await fs.mkdir(dir, { recursive: true });
      const held = path.join(dir, 'ref.md');
      const gone = path.join(dir, 'old.md');
      await fs.writeFile(held, `Bot token: ${token}\n`);
      await fs.writeFile(gone, `token ${token}\n`);
      git(repo, 'add', '-A', '.');
      git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'agent memory');
      await fs.rm(gone);
      const warnings = (await listAgentMemories(home, sub)).warnings.filter((w) => w.code === 'secret-in-git-history');
      expect(warnings.map((w) => w.file)).toEqual([gone]);
      expect(warnings[0]!.message).toMatch(/^\.claude\/agent-memory\/deployer\/old\.md held a GitHub token/);
    });

    it('names each secret of a file by its line in the commit that added it, when older commits added them (review s42: lines out of step)', async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
      const plain = ['---', 'name: ci', 'description: CI bot', 'type: reference', '---', '', 'Notes.', 'More notes.'];
      const file = await memory('agent-memory', 'deployer/reference_ci.md', `${plain.join('\n')}\n`);
      commit('agent memory');
      const other = `ghp_${'Q7wE3rT9yU1iO5pA2sD8fG4hJ6kL0zX3cV9b'}`;
      // Line 7 gets the first token (commit 2), line 10 the second (commit 3).
      await fs.writeFile(file, `${[...plain.slice(0, 6), `Bot token: ${token}`, ...plain.slice(6)].join('\n')}\n`);
      commit('first token');
      await fs.appendFile(file, `Deploy token: ${other}\n`);
      commit('second token');
      await fs.writeFile(file, `${plain.join('\n')}\n`);
      commit('tokens out');
      const [warning] = await historyWarnings();
      expect(warning!.message).toContain('a GitHub token (ghp_************) at line 10, a GitHub token (ghp_************) at line 7 of commit');
    });

    it('names a deleted file and a token in an old file name the same way; a secret still in the file is told once, as in the file', async () => {
      git(repo, 'init', '-q');
      await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
      const gone = await memory('agent-memory', 'deployer/old.md', `token ${token}\n`);
      const named = await memory('agent-memory', `deployer/reference_${token}.md`, 'The token is the name.\n');
      await memory('agent-memory', 'deployer/still.md', `token ${token}\n`);
      commit('agent memory');
      await fs.rm(gone);
      await fs.rename(named, path.join(path.dirname(named), 'reference_bot.md'));
      commit('tidy');
      const warnings = await historyWarnings();
      expect(warnings.map((w) => w.message.slice(0, w.message.indexOf(' commit ')))).toEqual([
        '.claude/agent-memory/deployer/old.md held a GitHub token (ghp_************) at line 1 of',
        '.claude/agent-memory/deployer/reference_ghp_************.md held a GitHub token (ghp_************) in its name in',
      ]);
      expect(JSON.stringify(warnings)).not.toContain(token.slice(4));
      expect((await secretWarnings()).map((w) => w.file)).toEqual([path.join(repo, '.claude/agent-memory/deployer/still.md')]);
    });

    it('reads the history once per HEAD commit: a second listing runs no git log, a new commit with a secret is found (session 43)', async () => {
      // Every git the listing runs, counted by a `git` on PATH that logs its arguments and execs the real one.
      const shim = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-git-shim-'));
      const calls = path.join(shim, 'calls.log');
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      await fs.writeFile(path.join(shim, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
      const savedPath = process.env.PATH;
      const gitLogsOf = async (fn: () => Promise<unknown>) => {
        await fs.writeFile(calls, '');
        process.env.PATH = `${shim}${path.delimiter}${savedPath ?? ''}`;
        try {
          await fn();
        } finally {
          process.env.PATH = savedPath;
        }
        return (await fs.readFile(calls, 'utf8')).split('\n').filter((line) => / log /.test(` ${line} `)).length;
      };
      try {
        git(repo, 'init', '-q');
        await agentFile(projectAgents(), 'deployer.md', definition('name: deployer\nmemory: project'));
        const file = await memory('agent-memory', 'deployer/reference_ci.md', `Bot token: ${token}\n`);
        commit('agent memory');
        await fs.writeFile(file, 'Bot token: in the vault.\n');
        let first: Awaited<ReturnType<typeof historyWarnings>> = [];
        expect(await gitLogsOf(async () => (first = await historyWarnings()))).toBe(1);
        expect(first.map((w) => w.file)).toEqual([file]);
        let second: Awaited<ReturnType<typeof historyWarnings>> = [];
        expect(await gitLogsOf(async () => (second = await historyWarnings()))).toBe(0);
        expect(second).toEqual(first);
        // Put back in the file: no longer only in history, with no new commit either.
        await fs.writeFile(file, `Bot token: ${token}\n`);
        expect(await gitLogsOf(async () => expect(await historyWarnings()).toEqual([]))).toBe(0);
        await fs.writeFile(file, 'Bot token: in the vault.\n');
        const other = `ghp_${'Q7wE3rT9yU1iO5pA2sD8fG4hJ6kL0zX3cV9b'}`;
        const later = await memory('agent-memory', 'deployer/reference_deploy.md', `Deploy token: ${other}\n`);
        commit('deploy token');
        await fs.rm(later);
        let third: Awaited<ReturnType<typeof historyWarnings>> = [];
        expect(await gitLogsOf(async () => (third = await historyWarnings()))).toBe(1);
        expect(third.map((w) => w.file).sort()).toEqual([file, later].sort());
      } finally {
        process.env.PATH = savedPath;
        await fs.rm(shim, { recursive: true, force: true });
      }
    });
  });
});

describe('a project or local MEMORY.md Claude Code does not read (2.1.332, observed-agent.json "notRead")', () => {
  /** Lay out agent `name` with `memory: scope`, then `lay` its memory folder; its listing's not-read warnings. */
  async function notRead(name: string, scope: 'user' | 'project' | 'local', lay: (dir: string) => Promise<void>) {
    await agentFile(scope === 'user' ? userAgents() : projectAgents(), `${name}.md`, definition(`name: ${name}\nmemory: ${scope}`));
    const root = scope === 'user' ? path.join(home, 'agent-memory') : path.join(repo, '.claude', scope === 'project' ? 'agent-memory' : 'agent-memory-local');
    await lay(path.join(root, name));
    const { warnings } = await listAgentMemories(home, repo);
    return warnings.filter((w) => w.code === 'agent-index-not-read');
  }
  const outside = () => path.join(tmp, 'outside');
  beforeEach(async () => {
    await fs.mkdir(outside());
    await fs.writeFile(path.join(outside(), 'MEMORY.md'), '- [x](x.md) — outside\n');
  });

  it('warns of a MEMORY.md that is a link, even to a file inside the working copy, naming the agent and what it is told', async () => {
    await fs.writeFile(path.join(repo, 'index.md'), '- [y](y.md)\n');
    const warnings = await notRead('linked', 'project', async (dir) => {
      await fs.mkdir(dir, { recursive: true });
      await fs.symlink(path.join(repo, 'index.md'), path.join(dir, 'MEMORY.md'));
    });
    expect(warnings).toEqual([
      {
        code: 'agent-index-not-read',
        file: path.join(repo, '.claude', 'agent-memory', 'linked', 'MEMORY.md'),
        message:
          'Claude Code does not read the MEMORY.md of sub-agent "linked": it is a symbolic link, and in project memory only a plain file is read. The sub-agent is told its memory was not loaded and to treat it as read-only, writing nothing in its folder. Put the file itself in place of the link.',
      },
    ]);
    expect(loadedAgentIndexText(path.join(repo, '.claude', 'agent-memory', 'linked'), 'project', repo, { autoMemoryEnabled: true })).toEqual({
      text: AGENT_INDEX_NOT_READ_SENTENCE,
      notRead: 'it is a symbolic link, and in project memory only a plain file is read',
    });
  });

  it('names an agent whose name holds a right-to-left override with the override shown, not obeyed (one quoteName rule)', async () => {
    const name = 'rtl\u202egnp.md';
    const [warning] = await notRead(name, 'project', async () => {
      const dir = path.join(repo, '.claude', 'agent-memory', agentTypeDirName(name));
      await fs.mkdir(path.join(dir, 'MEMORY.md'), { recursive: true });
    });
    expect(warning?.message).toContain('of sub-agent "rtl\\u202egnp.md": it is a folder');
    expect(warning?.message).not.toContain('\u202e');
  });

  it('warns of a local MEMORY.md that is a folder or a named pipe, and of a folder that leads out of the working copy', async () => {
    const pipe = await notRead('piped', 'local', async (dir) => {
      await fs.mkdir(dir, { recursive: true });
      execFileSync('mkfifo', [path.join(dir, 'MEMORY.md')]);
    });
    expect(pipe.map((w) => w.message)).toEqual([
      expect.stringContaining('"piped": it is not a regular file (a named pipe, a socket or a device), and in local memory only a plain file is read.'),
    ]);
    await fs.rm(path.join(repo, '.claude', 'agent-memory-local'), { recursive: true });
    await fs.rm(path.join(projectAgents(), 'piped.md'));
    const folder = await notRead('folder', 'local', async (dir) => void (await fs.mkdir(path.join(dir, 'MEMORY.md'), { recursive: true })));
    expect(folder.map((w) => w.message)).toEqual([expect.stringContaining('"folder": it is a folder, and in local memory')]);
    await fs.rm(path.join(projectAgents(), 'folder.md'));
    const out = await notRead('away', 'project', async (dir) => {
      await fs.mkdir(path.dirname(dir), { recursive: true });
      await fs.symlink(outside(), dir);
    });
    expect(out.map((w) => [w.file, w.message])).toEqual([
      [
        path.join(repo, '.claude', 'agent-memory', 'away'),
        expect.stringContaining(`"away": its folder leads out of ${repo} through a symbolic link. The sub-agent is told`),
      ],
    ]);
  });

  it('does not warn of a plain MEMORY.md, of none, of a folder linked inside the working copy, nor of a link in user memory', async () => {
    await fs.mkdir(path.join(repo, 'shared', 'kept'), { recursive: true });
    await fs.writeFile(path.join(repo, 'shared', 'kept', 'MEMORY.md'), '- [k](k.md)\n');
    expect(
      await notRead('plain', 'project', async (dir) => {
        await fs.mkdir(dir, { recursive: true });
        await fs.writeFile(path.join(dir, 'MEMORY.md'), '- [p](p.md)\n');
      }),
    ).toEqual([]);
    expect(await notRead('none', 'project', async () => undefined)).toEqual([]);
    expect(await notRead('kept', 'project', async (dir) => fs.symlink(path.join(repo, 'shared', 'kept'), dir))).toEqual([]);
    expect(
      await notRead('mine', 'user', async (dir) => {
        await fs.mkdir(dir, { recursive: true });
        await fs.symlink(path.join(outside(), 'MEMORY.md'), path.join(dir, 'MEMORY.md'));
      }),
    ).toEqual([]);
    expect(loadedAgentIndexText(path.join(repo, '.claude', 'agent-memory', 'kept'), 'project', repo, { autoMemoryEnabled: true })).toEqual({
      text: '- [k](k.md)',
      notRead: null,
    });
  });
});
