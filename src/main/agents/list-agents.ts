/**
 * R-AGENT: a project's sub-agents with their memory, as the Agents view (`agents.list`) and
 * `memdir agents` show them — one service for both doors. Which launch directory's memory is
 * shown (Claude Code keeps project and local agent memory where a session starts), the settings
 * in force there, each scope scanned as a sub-agent loads it, and every warning.
 */
import path from 'node:path';
import { MemdirError } from '../../shared/errors.js';
import { realpathDeepestExisting } from '../core/memory-lock.js';
import { loadIndexAsClaudeCode } from '../../shared/index-load.js';
import type { MemoryDirScan, ProjectScan, ProjectSettings } from '../../shared/scan-types.js';
import { agentMemoryOffSentence } from '../../shared/settings-text.js';
import { projectLaunchDirs, projectsRoot, readEffectiveSettings, readIndexTextAsClaudeCode, scanMemoryDir } from '../memdir/index.js';
import { lastSubAgentInjections } from '../transcripts/index.js';
import {
  AGENT_INDEX_NOT_READ_SENTENCE,
  type AgentMemory,
  type AgentMemoryScope,
  type AgentMemoryScopeName,
  agentIndexNotRead,
  listAgentMemories,
  otherLaunchDirWarnings,
} from './agent-memory.js';

/** What a sub-agent was last given of a folder's MEMORY.md, as its transcript recorded it. */
export interface LastInjected {
  text: string;
  at: string | null;
  sessionId: string;
}

/** The answer of `agents.list` (src/shared/contract/agents.ts) and of `memdir agents --json`. */
export interface AgentsListing {
  repoRoot: string | null;
  /** The launch directory whose project and local agent memory is shown, or null (user level only). */
  launchDir: string | null;
  /** Every directory the project's sessions start in, the main one first. */
  launchDirs: string[];
  agents: (Omit<AgentMemory, 'scopes'> & { scopes: (AgentMemoryScope & { scan: MemoryDirScan | null; lastInjected: LastInjected | null })[] })[];
  warnings: { code: string; file?: string; message: string }[];
}

/**
 * The sub-agents of `project` (null: the user level only) with their memory. `launchDir` picks
 * one of the project's launch directories (default its main one).
 * @throws {MemdirError} 'invalid-input' when no session of the project starts in `launchDir`.
 */
export async function listProjectAgents(
  home: string,
  project: ProjectScan | null,
  options: { launchDir?: string | undefined; env: NodeJS.ProcessEnv },
): Promise<AgentsListing> {
  const asked = options.launchDir;
  const repoRoot = project?.path ?? null;
  // Claude Code keeps project and local agent memory in the directory a session starts in (the
  // main one, whose settings speak for the project, unless another is asked for), not at the canonical key.
  const dirs = project ? projectLaunchDirs(project) : null;
  const launchDirs = dirs ? [...(dirs.main ? [dirs.main] : []), ...dirs.others] : [];
  let launchDir = dirs?.main ?? null;
  if (asked !== undefined) {
    // The same directory however it is named: through a symbolic link, with a trailing slash.
    const real = await realPath(asked);
    const found = launchDirs[(await Promise.all(launchDirs.map(realPath))).indexOf(real)];
    if (!found)
      throw new MemdirError(
        'invalid-input',
        `No session of ${project ? 'this project' : 'a project'} starts in ${asked}, so it keeps no agent memory of this project.`,
      );
    launchDir = found;
  }
  // The settings of that launch directory, or the user's and the environment's alone.
  const settings =
    project && launchDir === dirs?.main
      ? project.settings
      : await readEffectiveSettings(home, launchDir && repoRoot ? { launchDir, canonicalRoot: repoRoot } : null, options.env);
  const { agents, warnings } = await listAgentMemories(home, launchDir, repoRoot, { memoryBase: settings.memoryBase });
  const off = agentMemoryOffSentence(settings);
  const others = launchDir ? await otherLaunchDirWarnings(launchDir, launchDirs) : [];
  // Sub-agents of the project's sessions, wherever they started (user memory is given in any project).
  const folders = project ? project.launchDirs.map((l) => path.join(projectsRoot(home), l.folder)) : [];
  const injections = project
    ? await lastSubAgentInjections(
        folders,
        // A folder neither named by a definition nor on disk was never given to a sub-agent worth naming.
        agents.flatMap((a) => a.scopes.filter((s) => s.enabled || s.exists).map((s) => s.memoryDir)),
      )
    : new Map();
  const lastInjected = (memoryDir: string): LastInjected | null => {
    const found = injections.get(path.resolve(memoryDir));
    return found ? { text: found.text, at: found.at, sessionId: found.sessionId } : null;
  };
  return {
    repoRoot,
    launchDir,
    launchDirs,
    warnings: [...(off ? [{ code: 'auto-memory-off', message: off }] : []), ...warnings, ...others],
    agents: agents.map((a) => ({
      agentType: a.agentType,
      definedIn: a.definedIn,
      scopes: a.scopes.map((s) => ({
        ...s,
        scan: s.exists ? scanMemoryDir(s.memoryDir, { scope: 'private', agent: true }) : null,
        lastInjected: lastInjected(s.memoryDir),
      })),
    })),
  };
}

/** The real path of a directory (links followed), or the path itself, resolved, when that fails. */
async function realPath(dir: string): Promise<string> {
  return realpathDeepestExisting(dir).catch(() => path.resolve(dir));
}

/**
 * The text a sub-agent is given of its MEMORY.md: cut at 200 lines / 25,000 characters and, unlike
 * the main agent's, not stripped of frontmatter or comments (Claude Code 2.1.332, checked in
 * claude-code-interop.test.ts); '' when it has none. A project or local one Claude Code does not
 * read (agentIndexNotRead: a link, a special file, a folder leading out of `launchDir`) gives
 * the sentence the sub-agent gets instead, with why in `notRead`. With auto memory off (the
 * settings in force where the session starts) it is given nothing, checked first: Claude Code
 * 2.1.332 then gives a sub-agent no memory section at all, not even a MEMORY.md already there
 * (observed-agent.json, autoMemoryOff), so nothing is read.
 */
export function loadedAgentIndexText(
  memoryDir: string,
  scope: AgentMemoryScopeName,
  launchDir: string | null,
  settings: Pick<ProjectSettings, 'autoMemoryEnabled'>,
): { text: string; notRead: string | null } {
  if (!settings.autoMemoryEnabled) return { text: '', notRead: null };
  const refused = agentIndexNotRead(scope, memoryDir, launchDir);
  if (refused) return { text: AGENT_INDEX_NOT_READ_SENTENCE, notRead: refused.reason };
  return { text: loadIndexAsClaudeCode(readIndexTextAsClaudeCode(memoryDir).text, { strip: false }).text, notRead: null };
}
