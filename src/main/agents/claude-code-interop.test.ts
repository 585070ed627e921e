/**
 * Memdir against the real Claude Code on sub-agent memory (R-AGENT): the main agent launches
 * sub-agents through its `Agent` tool (test-support/claude-code-agent.ts), and Memdir must name
 * the memory directory each one is given and predict, byte for byte, the MEMORY.md text it
 * loads. The live cases skip with a reason when the pinned binary is not installed; the
 * recorded observations (test/fixtures/claude-code-agent/observed-agent.json) are checked
 * always. `MEMDIR_RECORD_AGENT_FIXTURES=1` rewrites that file from what the client did.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { PINNED_CLAUDE_CODE, REAL_CLAUDE_CODE } from '../llm/test-support/real-claude-code.js';
import { agentMemoryOffSentence } from '../../shared/settings-text.js';
import { readEffectiveSettings, scanMemoryDir } from '../memdir/index.js';
import { agentTypeDirName, listAgentMemories } from './agent-memory.js';
import { loadedAgentIndexText } from './list-agents.js';
import { runCli } from '../../cli/main.js';
import { listHomeTranscripts } from '../transcripts/index.js';
import { visibleText } from '../../shared/visible-text.js';
import {
  EMPTY_INDEX_SENTENCE,
  NOT_READ_CASES,
  type NotReadPlaces,
  launchSubAgents,
  layNotReadPlaces,
  type SubAgentSeen,
  notReadDir,
  writeAgentDefinition,
} from './test-support/claude-code-agent.js';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/claude-code-agent/observed-agent.json');
const INDEXES = path.resolve(__dirname, '../../../test/fixtures/claude-code-index');
const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
const record = process.env.MEMDIR_RECORD_AGENT_FIXTURES === '1';

/** What the client did, as recorded. Paths are relative to the run's config dir or repository. */
interface Observed {
  version: string;
  /** Agent name → the scope its definition names and the directory the client gave it. */
  folders: Record<string, { definedAt: 'user' | 'project'; memory: string; launched: boolean; memoryDir: string; created: boolean; scopeLine: string | null }>;
  /** The sentence that opens a sub-agent's memory section, its directory written `<dir>`. */
  guidance: string;
  /** Index fixture → the text of the sub-agent's `## MEMORY.md` section. */
  indexes: Record<string, string>;
  /** Launched in the repository's `pkg/app` or in a linked worktree: `<where>:<agent>` → the folder it got there. */
  launchDirs: Record<string, string>;
  /** With `CLAUDE_CODE_REMOTE_MEMORY_DIR=<remote>`: the folder of a user-level and of a project agent. */
  remoteMemoryDir: Record<string, string>;
  /**
   * With `autoMemoryEnabled: false` in the user settings: whether it got a memory section, and whether the folder was made;
   * `withIndex`: the same for an agent whose folder holds a MEMORY.md already (whether its text reached the sub-agent at all).
   */
  autoMemoryOff: { memorySection: boolean; created: boolean; withIndex: { memorySection: boolean; indexGiven: boolean } };
  /** NOT_READ_CASES name → the text of its `## MEMORY.md` section (a link, a special file, a folder leading out). */
  notRead: Record<string, string>;
}

const FOLDER_AGENTS: { name: string; definedAt: 'user' | 'project'; memory: string }[] = [
  { name: 'user-helper', definedAt: 'user', memory: 'user' },
  { name: 'my_helper', definedAt: 'project', memory: 'project' },
  { name: 'MyHelper2', definedAt: 'project', memory: 'local' },
  { name: 'with space', definedAt: 'project', memory: 'project' },
  { name: 'dots.x', definedAt: 'project', memory: 'local' },
  { name: 'plug:agent', definedAt: 'user', memory: 'user' },
  { name: 'x/../y', definedAt: 'project', memory: 'project' },
  { name: 'Ünï 😀', definedAt: 'project', memory: 'project' },
  { name: 'spaced-scope', definedAt: 'project', memory: '" local "' },
];
const INDEX_CASES = ['comments', 'fm-comment-220', 'fm-only', 'bom-ctrl', 'lines-201', 'cjk120', 'long-line', 'crlf-210'];

/** The client's `## MEMORY.md` section for a not-read case laid out at `at`, as Memdir predicts it. */
function predictedNotRead(c: (typeof NOT_READ_CASES)[number], at: NotReadPlaces): string {
  const text = loadedAgentIndexText(notReadDir(c, at), c.scope, at.repo, ON).text;
  return text === '' ? EMPTY_INDEX_SENTENCE : text;
}

/** Each not-read case's agent, defined (agent `i` carries marker `i`), its folder laid out. */
function layNotReadCases(at: NotReadPlaces): void {
  layNotReadPlaces(at);
  NOT_READ_CASES.forEach((c, i) => {
    writeAgentDefinition(c.scope === 'user' ? path.join(at.config, 'agents') : path.join(at.repo, '.claude', 'agents'), `${c.name}.md`, c.name, c.scope, i);
    c.lay(notReadDir(c, at), at);
  });
}

/** The client's `## MEMORY.md` section for an index text, as Memdir predicts it. */
function predictedSection(raw: string): string {
  const text = loadIndexAsClaudeCode(raw, { version: PINNED_CLAUDE_CODE, strip: false }).text;
  return text === '' ? EMPTY_INDEX_SENTENCE : text;
}

const recorded = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Observed;
/** Auto memory on (the default): what a sub-agent loads is its MEMORY.md. */
const ON = { autoMemoryEnabled: true } as const;

describe('recorded sub-agent memory of Claude Code 2.1.332 (observed-agent.json)', () => {
  it('names each folder as Memdir does', () => {
    for (const [name, seen] of Object.entries(recorded.folders)) {
      if (seen.memoryDir === '') continue;
      expect(path.basename(seen.memoryDir), name).toBe(agentTypeDirName(name));
    }
  });
  it('makes the folder when it launches the sub-agent, though the sub-agent saved nothing', () => {
    for (const [name, seen] of Object.entries(recorded.folders)) expect(seen.created, name).toBe(seen.memoryDir !== '');
  });
  it.each(Object.keys(recorded.indexes))('loads %s as Memdir predicts', (name) => {
    expect(recorded.indexes[name]).toBe(predictedSection(fs.readFileSync(path.join(INDEXES, `${name}.md`), 'utf8')));
  });
  it('gives no sub-agent memory with auto memory off, not even a MEMORY.md already there, as Memdir predicts', () => {
    expect(recorded.autoMemoryOff).toEqual({ memorySection: false, created: false, withIndex: { memorySection: false, indexGiven: false } });
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-agents-off-')));
    try {
      fs.writeFileSync(path.join(tmp, 'MEMORY.md'), '- [Kept](kept.md) — kept\n');
      expect(loadedAgentIndexText(tmp, 'user', null, { autoMemoryEnabled: false })).toEqual({ text: '', notRead: null });
      expect(loadedAgentIndexText(tmp, 'user', null, ON).text).toBe('- [Kept](kept.md) — kept');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  it('does not read a project or local MEMORY.md that is a link or a folder, nor one in a folder leading out, as Memdir predicts', () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-agents-not-read-')));
    try {
      const at = { repo: path.join(tmp, 'repo'), outside: path.join(tmp, 'outside'), config: path.join(tmp, 'config') };
      layNotReadCases(at);
      expect(Object.keys(recorded.notRead)).toEqual(NOT_READ_CASES.map((c) => c.name));
      for (const c of NOT_READ_CASES) expect(predictedNotRead(c, at), c.name).toBe(recorded.notRead[c.name]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe.skipIf(skip !== null)(`the real Claude Code gives sub-agents the memory Memdir shows${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let tmp: string;
  let runs = 0;
  const observed: Partial<Observed> = {};
  beforeAll(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-agents-')));
  });
  afterAll(() => {
    if (
      record &&
      observed.guidance &&
      observed.folders &&
      observed.indexes &&
      observed.launchDirs &&
      observed.remoteMemoryDir &&
      observed.autoMemoryOff &&
      observed.notRead
    )
      fs.writeFileSync(FIXTURE, `${JSON.stringify({ version: PINNED_CLAUDE_CODE, ...observed }, null, 1)}\n`);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A fresh git repository and config dir. */
  function fresh(): { repo: string; config: string; scratch: string } {
    const n = ++runs;
    const repo = path.join(tmp, `repo-${n}`);
    fs.mkdirSync(repo, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    return { repo, config: path.join(tmp, `config-${n}`), scratch: path.join(tmp, `scratch-${n}`) };
  }

  it('the folder of each scope and agent name', async () => {
    const { repo, config, scratch } = fresh();
    FOLDER_AGENTS.forEach((a, i) =>
      writeAgentDefinition(a.definedAt === 'user' ? path.join(config, 'agents') : path.join(repo, '.claude', 'agents'), `a${i}.md`, a.name, a.memory, i),
    );
    const run = await launchSubAgents({ cwd: repo, configDir: config, scratch, agents: FOLDER_AGENTS.map((a) => a.name) });
    expect(run.code, run.output).toBe(0);
    const memdir = await listAgentMemories(config, repo);
    observed.folders = {};
    FOLDER_AGENTS.forEach((a, i) => {
      const seen = run.seen[i]!;
      const shown = memdir.agents.find((m) => m.agentType === a.name);
      // An agent the client does not load (a file-defined `plugin:agent` name): Memdir lists no definition of it.
      expect(shown !== undefined, a.name).toBe(seen.launched);
      const enabled = shown?.scopes.find((s) => s.enabled);
      expect(enabled?.memoryDir ?? null, a.name).toBe(seen.memoryDir);
      if (enabled) expect(enabled.exists, `${a.name}: the client makes the folder`).toBe(fs.existsSync(enabled.memoryDir));
      const rel =
        seen.memoryDir === null ? '' : seen.memoryDir.startsWith(config) ? path.relative(config, seen.memoryDir) : path.relative(repo, seen.memoryDir);
      observed.folders![a.name] = {
        definedAt: a.definedAt,
        memory: a.memory,
        launched: seen.launched,
        memoryDir: rel,
        created: seen.memoryDir !== null && fs.existsSync(seen.memoryDir),
        scopeLine: seen.scopeLine,
      };
      if (seen.guidance && seen.memoryDir) observed.guidance = seen.guidance.replace(`${seen.memoryDir}/`, '<dir>/');
    });
  }, 180_000);

  it('the MEMORY.md text each sub-agent loads', async () => {
    const { repo, config, scratch } = fresh();
    const names = [...INDEX_CASES, 'empty'];
    names.forEach((name, i) => {
      writeAgentDefinition(path.join(repo, '.claude', 'agents'), `${name}.md`, `idx-${name}`, 'project', i);
      const dir = path.join(repo, '.claude', 'agent-memory', `idx-${name}`);
      fs.mkdirSync(dir, { recursive: true });
      if (name !== 'empty') fs.copyFileSync(path.join(INDEXES, `${name}.md`), path.join(dir, 'MEMORY.md'));
    });
    const run = await launchSubAgents({ cwd: repo, configDir: config, scratch, agents: names.map((n) => `idx-${n}`) });
    expect(run.code, run.output).toBe(0);
    observed.indexes = {};
    names.forEach((name, i) => {
      const seen = run.seen[i]!;
      if (name === 'empty') return expect(seen.index).toBe(EMPTY_INDEX_SENTENCE);
      const dir = path.join(repo, '.claude', 'agent-memory', `idx-${name}`);
      const raw = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
      expect(seen.index, name).toBe(predictedSection(raw));
      observed.indexes![name] = seen.index!;
      // What the Agents view shows of it: as many whole lines reach the sub-agent as it was given.
      const shown = scanMemoryDir(dir, { scope: 'private', agent: true }).index;
      const given = seen.index!.split('\n\n> WARNING: ')[0]!;
      expect(shown.firstCutLine === null, name).toBe(!seen.index!.includes('\n\n> WARNING: MEMORY.md is '));
      if (shown.firstCutLine !== null && shown.loadedLines > 0) expect(given.replace(/\n$/, '').split('\n').length, name).toBe(shown.loadedLines);
      // What `memdir agents` shows of it: the text it was given, its first lines in the block.
      expect(loadedAgentIndexText(dir, 'project', repo, ON).text, name).toBe(seen.index);
    });
    // And what each was given, read back from its own transcript (agents.list's lastInjected).
    let json = '';
    expect(
      await runCli(['agents', '--project', repo, '--json'], {
        out: (t) => (json += t),
        err: (t) => (json += t),
        env: { CLAUDE_CONFIG_DIR: config, MEMDIR_DATA_DIR: scratch },
        cwd: repo,
      }),
      json,
    ).toBe(0);
    const listed = JSON.parse(json) as { agents: { agentType: string; scopes: { enabled: boolean; lastInjected: { text: string } | null }[] }[] };
    for (const [i, name] of names.entries()) {
      const given = run.seen[i]!.index === EMPTY_INDEX_SENTENCE ? '' : run.seen[i]!.index;
      expect(listed.agents.find((a) => a.agentType === `idx-${name}`)?.scopes.find((s) => s.enabled)?.lastInjected?.text, name).toBe(given);
    }
    // lastInjected stops reading older transcripts on this: a sub-agent's transcript is last written
    // no earlier than its prompt snapshot's time.
    const subAgents = (await listHomeTranscripts(config, { includeSubagents: true })).filter((f) => f.kind === 'subagent');
    expect(subAgents.length).toBeGreaterThanOrEqual(names.length);
    for (const file of subAgents) {
      const snapshot = fs
        .readFileSync(file.path, 'utf8')
        .split('\n')
        .find((line) => line.includes('"prompt_snapshot"'));
      const at = Date.parse((JSON.parse(snapshot ?? '{}') as { timestamp?: string }).timestamp ?? '');
      expect(file.mtimeMs, file.path).toBeGreaterThanOrEqual(at);
    }
    let out = '';
    const code = await runCli(['agents', '--project', repo], {
      out: (t) => (out += t),
      err: (t) => (out += t),
      env: { CLAUDE_CONFIG_DIR: config, MEMDIR_DATA_DIR: scratch },
      cwd: repo,
    });
    expect(code, out).toBe(0);
    for (const [i, name] of INDEX_CASES.entries()) {
      const head = run.seen[i]!.index!.split('\n').slice(0, 5).join('\n              ');
      expect(out, name).toContain(`\nidx-${name}  project memory (committed with the repository)\n`);
      expect(out, name).toContain(visibleText(`  loads       ${head}\n`));
    }
  }, 180_000);

  it('a user-level memory folder that is a symbolic link: the sub-agent loads its MEMORY.md through the link, and Memdir lists it', async () => {
    const { repo, config, scratch } = fresh();
    writeAgentDefinition(path.join(config, 'agents'), 'l.md', 'linked', 'user', 0);
    // Kept in a dotfiles checkout and linked into the Claude home.
    const kept = path.join(tmp, `dotfiles-${runs}`, 'linked');
    fs.mkdirSync(kept, { recursive: true });
    fs.writeFileSync(path.join(kept, 'MEMORY.md'), '- [Style](style.md) — terse reviews, kept in dotfiles\n');
    fs.mkdirSync(path.join(config, 'agent-memory'), { recursive: true });
    fs.symlinkSync(kept, path.join(config, 'agent-memory', 'linked'));
    const run = await launchSubAgents({ cwd: repo, configDir: config, scratch, agents: ['linked'] });
    expect(run.code, run.output).toBe(0);
    expect(run.seen[0]!.index).toBe(predictedSection(fs.readFileSync(path.join(kept, 'MEMORY.md'), 'utf8')));
    const shown = (await listAgentMemories(config, repo)).agents.find((a) => a.agentType === 'linked')?.scopes.find((s) => s.enabled);
    expect(shown).toMatchObject({ memoryDir: run.seen[0]!.memoryDir, exists: true });
  }, 120_000);

  it("launched in a subdirectory or a linked worktree: the memory folder is the launch directory's", async () => {
    const { repo, config, scratch } = fresh();
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'init'], { cwd: repo });
    const sub = path.join(repo, 'pkg', 'app');
    fs.mkdirSync(sub, { recursive: true });
    const worktree = `${repo}-wt`;
    execFileSync('git', ['worktree', 'add', '-q', worktree], { cwd: repo });
    const agents = ['rooted', 'nearer'];
    writeAgentDefinition(path.join(repo, '.claude', 'agents'), 'r.md', 'rooted', 'project', 0);
    writeAgentDefinition(path.join(repo, '.claude', 'agents'), 'n.md', 'nearer', 'project', 1);
    // The same name nearer the launch directory wins there.
    writeAgentDefinition(path.join(repo, 'pkg', '.claude', 'agents'), 'n.md', 'nearer', 'local', 1);
    observed.launchDirs = {};
    for (const cwd of [sub, worktree]) {
      const run = await launchSubAgents({ cwd, configDir: config, scratch, agents });
      expect(run.code, run.output).toBe(0);
      // Both share the repository's memory (R-KEY): the canonical key is the repository.
      const memdir = await listAgentMemories(config, cwd, repo);
      for (const [i, agent] of agents.entries()) {
        const seen = run.seen[i]!;
        expect(seen.launched, `${cwd}: ${agent}`).toBe(true);
        expect(memdir.agents.find((a) => a.agentType === agent)?.scopes.find((s) => s.enabled)?.memoryDir, `${cwd}: ${agent}`).toBe(seen.memoryDir);
        const label = cwd === sub ? 'pkg/app' : 'worktree';
        observed.launchDirs![`${label}:${agent}`] = `${label}/${path.relative(cwd, seen.memoryDir!)}`;
      }
    }
  }, 180_000);

  it('CLAUDE_CODE_REMOTE_MEMORY_DIR moves user-level agent memory, not project memory', async () => {
    const { repo, config, scratch } = fresh();
    const remote = path.join(tmp, `remote-${runs}`);
    writeAgentDefinition(path.join(config, 'agents'), 'u.md', 'usr', 'user', 0);
    writeAgentDefinition(path.join(repo, '.claude', 'agents'), 'p.md', 'prj', 'project', 1);
    const env = { CLAUDE_CODE_REMOTE_MEMORY_DIR: remote };
    const run = await launchSubAgents({ cwd: repo, configDir: config, scratch, agents: ['usr', 'prj'], env });
    expect(run.code, run.output).toBe(0);
    const { memoryBase } = await readEffectiveSettings(config, null, env);
    const memdir = await listAgentMemories(config, repo, repo, { memoryBase });
    const shown = (agent: string) => memdir.agents.find((a) => a.agentType === agent)?.scopes.find((s) => s.enabled)?.memoryDir;
    expect([shown('usr'), shown('prj')]).toEqual(run.seen.map((s) => s.memoryDir));
    observed.remoteMemoryDir = { usr: `remote/${path.relative(remote, run.seen[0]!.memoryDir!)}`, prj: path.relative(repo, run.seen[1]!.memoryDir!) };
  }, 120_000);

  it('two names that map to one folder name share one memory, and Memdir warns of it', async () => {
    const { repo, config, scratch } = fresh();
    const names = ['日本語', '中文字'];
    names.forEach((name, i) => writeAgentDefinition(path.join(repo, '.claude', 'agents'), `a${i}.md`, name, 'project', i));
    const shared = path.join(repo, '.claude', 'agent-memory', '---');
    fs.mkdirSync(shared, { recursive: true });
    fs.writeFileSync(path.join(shared, 'MEMORY.md'), '- [One](one.md) — written by either\n');
    const run = await launchSubAgents({ cwd: repo, configDir: config, scratch, agents: names });
    expect(run.code, run.output).toBe(0);
    expect(run.seen.map((s) => [s.memoryDir, s.index])).toEqual(names.map(() => [shared, '- [One](one.md) — written by either']));
    const memdir = await listAgentMemories(config, repo);
    expect(memdir.warnings.filter((w) => w.code === 'shared-memory-folder').map((w) => w.file)).toEqual([shared]);
  }, 120_000);

  it('project and local MEMORY.md: not read when a link, a folder, or in a folder leading out of the working copy; user memory through any link', async () => {
    const { repo, config, scratch } = fresh();
    const at = { repo, config, outside: path.join(tmp, `outside-${runs}`) };
    layNotReadCases(at);
    const run = await launchSubAgents({ cwd: repo, configDir: config, scratch, agents: NOT_READ_CASES.map((c) => c.name) });
    expect(run.code, run.output).toBe(0);
    observed.notRead = {};
    NOT_READ_CASES.forEach((c, i) => {
      const seen = run.seen[i]!;
      expect(seen.memoryDir, c.name).toBe(notReadDir(c, at));
      expect(seen.index, c.name).toBe(predictedNotRead(c, at));
      observed.notRead![c.name] = seen.index!;
    });
    // And the Agents view warns of each one not read, naming it.
    const refused = NOT_READ_CASES.filter((c) => observed.notRead![c.name]!.startsWith('Your MEMORY.md was not loaded'));
    expect(refused.length).toBeGreaterThan(0);
    const warned = (await listAgentMemories(config, repo)).warnings.filter((w) => w.code === 'agent-index-not-read');
    expect(warned.map((w) => w.message.split('"')[1]).sort()).toEqual(refused.map((c) => c.name).sort());
  }, 120_000);

  it('with auto memory off, no sub-agent gets memory, not even a MEMORY.md already there', async () => {
    const { repo, config, scratch } = fresh();
    writeAgentDefinition(path.join(repo, '.claude', 'agents'), 'a.md', 'helper', 'project', 0);
    // A second agent whose local memory folder already holds an index (a local folder: the helper's project folder must stay unmade).
    writeAgentDefinition(path.join(repo, '.claude', 'agents'), 'b.md', 'keeper', 'local', 1);
    const kept = path.join(repo, '.claude', 'agent-memory-local', 'keeper');
    fs.mkdirSync(kept, { recursive: true });
    fs.writeFileSync(path.join(kept, 'MEMORY.md'), '- [Kept](kept.md) — MARKER-KEPT-INDEX\n');
    fs.writeFileSync(path.join(kept, 'kept.md'), '---\nname: Kept\ndescription: kept\ntype: project\n---\nKept.\n');
    fs.mkdirSync(config, { recursive: true });
    fs.writeFileSync(path.join(config, 'settings.json'), JSON.stringify({ autoMemoryEnabled: false }));
    const run = await launchSubAgents({ cwd: repo, configDir: config, scratch, agents: ['helper', 'keeper'] });
    expect(run.code, run.output).toBe(0);
    const [seen, keeper] = run.seen as [SubAgentSeen, SubAgentSeen];
    expect(seen.launched).toBe(true);
    expect(keeper.launched).toBe(true);
    observed.autoMemoryOff = {
      memorySection: seen.memoryDir !== null,
      created: fs.existsSync(path.join(repo, '.claude', 'agent-memory')),
      withIndex: { memorySection: keeper.memoryDir !== null || keeper.index !== null, indexGiven: keeper.systemText.includes('MARKER-KEPT-INDEX') },
    };
    expect(observed.autoMemoryOff).toEqual({ memorySection: false, created: false, withIndex: { memorySection: false, indexGiven: false } });
    // Memdir shows the same: nothing of the kept MEMORY.md loads while auto memory is off.
    const settings = await readEffectiveSettings(config, null, {});
    expect(loadedAgentIndexText(kept, 'local', repo, settings).text).toBe('');
    // And Memdir says so (the sentence the Agents view shows), from the same settings.
    expect(agentMemoryOffSentence(await readEffectiveSettings(config, null, {}))).toMatch(/^Auto memory is off \("autoMemoryEnabled": false in /);
  }, 120_000);
});
