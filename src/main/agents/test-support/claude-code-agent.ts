/**
 * The real Claude Code launching sub-agents (R-AGENT), for tests that compare Memdir with it.
 * `claude -p` runs offline against the loopback fake Messages API (real-claude-code.ts); the fake
 * answers the main agent's first request with one `Agent` tool call per agent type asked for
 * (`subagent_type`, `run_in_background: false`; the only tool allowed), and each sub-agent's own
 * request is recognised by the marker its definition's body carries. What a sub-agent was given
 * is read back from that request's system prompt: the memory directory it names and the text
 * of its `## MEMORY.md` section.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { runClaudeCode } from '../../llm/test-support/real-claude-code.js';

/** The marker a sub-agent's definition body starts with, and its request carries. */
export const subAgentMarker = (n: number): string => `MARKER-SUBAGENT-${n}-END`;

/** Write a sub-agent definition whose body carries marker `n`; `memory` null leaves the field out. */
export function writeAgentDefinition(dir: string, file: string, name: string, memory: string | null, n: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const fields = [`name: ${JSON.stringify(name)}`, 'description: helps with one thing', ...(memory === null ? [] : [`memory: ${memory}`])];
  fs.writeFileSync(path.join(dir, file), `---\n${fields.join('\n')}\n---\n${subAgentMarker(n)} You help.\n`);
}

/** What one sub-agent was given. */
export interface SubAgentSeen {
  /** Whether its request reached the fake API at all. */
  launched: boolean;
  /** The memory directory its system prompt names (trailing separator removed), or null without a memory section. */
  memoryDir: string | null;
  /** The text of its `## MEMORY.md` section, or null without one. */
  index: string | null;
  /** The sentence saying what its memory's scope means (`- Since this memory is …`), or null. */
  scopeLine: string | null;
  /** The line that opens its memory section (`You have a persistent, file-based memory system at …`), or null. */
  guidance: string | null;
  /** Its whole system prompt ('' when it was not launched). */
  systemText: string;
}

/** The sentence the client puts in the section when MEMORY.md is absent or loads as nothing. */
export const EMPTY_INDEX_SENTENCE = 'Your MEMORY.md is currently empty. When you save new memories, they will appear here.';

function seenIn(system: string | null): SubAgentSeen {
  if (system === null) return { launched: false, memoryDir: null, index: null, scopeLine: null, guidance: null, systemText: '' };
  const dir = /persistent, file-based memory system at `([^`]+)`/.exec(system)?.[1] ?? null;
  const start = system.indexOf('\n## MEMORY.md\n\n');
  const end = system.indexOf('\n\nMessages from the agent that launched you', start);
  return {
    launched: true,
    memoryDir: dir === null ? null : dir.replace(/[/\\]+$/, ''),
    index: start < 0 ? null : system.slice(start + '\n## MEMORY.md\n\n'.length, end < 0 ? undefined : end),
    scopeLine: /^- Since this memory is .*$/m.exec(system)?.[0] ?? null,
    guidance: /^You have a persistent, file-based memory system at .*$/m.exec(system)?.[0] ?? null,
    systemText: system,
  };
}

/**
 * Run `claude -p` in `cwd` and have the main agent launch `agents` (agent types; agent `i` must
 * carry marker `i`). Returns what each one was given, in order.
 */
export async function launchSubAgents(options: {
  cwd: string;
  configDir: string;
  scratch: string;
  agents: readonly string[];
  env?: Record<string, string>;
}): Promise<{ code: number | null; output: string; seen: SubAgentSeen[] }> {
  for (const dir of [options.configDir, options.scratch]) fs.mkdirSync(dir, { recursive: true });
  const fake = await startFakeAnthropic({ fallback: { kind: 'message', text: 'ok' } });
  let launched = false;
  const systems: (string | null)[] = options.agents.map(() => null);
  fake.setHandler((request) => {
    const system = JSON.stringify(request.body?.system ?? '');
    const n = options.agents.findIndex((_, i) => system.includes(subAgentMarker(i)));
    if (n >= 0) {
      systems[n] = ((request.body?.system ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');
      return { kind: 'message', text: 'done' };
    }
    if (launched) return { kind: 'message', text: 'ok' };
    launched = true;
    return {
      kind: 'message',
      stopReason: 'tool_use',
      content: options.agents.map((agent, i) => ({
        type: 'tool_use',
        id: `toolu_agent_${i}`,
        name: 'Agent',
        input: { description: 'help out', prompt: 'do the thing', subagent_type: agent, run_in_background: false },
      })),
    };
  });
  try {
    const run = await runClaudeCode(['-p', 'hello', '--allowedTools', 'Agent'], {
      cwd: options.cwd,
      configDir: options.configDir,
      scratch: options.scratch,
      baseUrl: fake.url,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      timeoutMs: 120_000,
    });
    return { code: run.code, output: run.stdout + run.stderr, seen: systems.map(seenIn) };
  } finally {
    await fake.close();
  }
}

/** Where a not-read case is laid out: the repository (launch directory), a folder outside it, the Claude home. */
export interface NotReadPlaces {
  repo: string;
  outside: string;
  config: string;
}

/**
 * Agent memory folders Claude Code 2.1.332 does (not) read MEMORY.md from, by scope: links, special
 * files and folders leading out of the working copy (observed-agent.json `notRead`, replayed by
 * claude-code-interop.test.ts without the binary). `lay` makes agent memory folder `dir` of the case.
 */
export const NOT_READ_CASES: { name: string; scope: 'user' | 'project' | 'local'; lay: (dir: string, at: NotReadPlaces) => void }[] = [
  { name: 'nr-link-out', scope: 'project', lay: (dir, at) => linkIndex(dir, path.join(at.outside, 'MEMORY.md')) },
  { name: 'nr-link-in', scope: 'project', lay: (dir, at) => linkIndex(dir, path.join(at.repo, 'docs', 'index.md')) },
  { name: 'nr-link-dangling', scope: 'project', lay: (dir, at) => linkIndex(dir, path.join(at.repo, 'nothing.md')) },
  { name: 'nr-folder-out', scope: 'project', lay: (dir, at) => linkFolder(dir, at.outside) },
  { name: 'nr-folder-in', scope: 'project', lay: (dir, at) => linkFolder(dir, path.join(at.repo, 'docs', 'kept')) },
  { name: 'nr-local-link', scope: 'local', lay: (dir, at) => linkIndex(dir, path.join(at.outside, 'MEMORY.md')) },
  { name: 'nr-local-index-folder', scope: 'local', lay: (dir) => fs.mkdirSync(path.join(dir, 'MEMORY.md'), { recursive: true }) },
  { name: 'nr-user-link', scope: 'user', lay: (dir, at) => linkIndex(dir, path.join(at.outside, 'MEMORY.md')) },
];

/** The texts the not-read cases' folders point at, and the Claude home's and the repository's folders. */
export function layNotReadPlaces(at: NotReadPlaces): void {
  fs.mkdirSync(at.outside, { recursive: true });
  fs.writeFileSync(path.join(at.outside, 'MEMORY.md'), '- [Outside](outside.md) — an index outside the working copy\n');
  fs.mkdirSync(path.join(at.repo, 'docs', 'kept'), { recursive: true });
  fs.writeFileSync(path.join(at.repo, 'docs', 'index.md'), '- [Docs](docs.md) — an index inside the working copy\n');
  fs.writeFileSync(path.join(at.repo, 'docs', 'kept', 'MEMORY.md'), '- [Kept](kept.md) — a folder linked inside the working copy\n');
}

/** The memory folder of a not-read case's agent. */
export function notReadDir(c: (typeof NOT_READ_CASES)[number], at: NotReadPlaces): string {
  const root =
    c.scope === 'user' ? path.join(at.config, 'agent-memory') : path.join(at.repo, '.claude', c.scope === 'project' ? 'agent-memory' : 'agent-memory-local');
  return path.join(root, c.name);
}

function linkIndex(dir: string, target: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(target, path.join(dir, 'MEMORY.md'));
}

function linkFolder(dir: string, target: string): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.symlinkSync(target, dir);
}
