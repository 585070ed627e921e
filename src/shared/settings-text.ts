/**
 * The sentences that say which Claude Code setting is in force and where it came from (R-SETTINGS),
 * one place for the CLI and the app: why no index loads when auto memory is off, and when a
 * repository's own settings move the memory, whether Claude Code trusts the folder.
 */
import type { ProjectSettings } from './scan-types.js';

type AutoMemoryFacts = Pick<ProjectSettings, 'autoMemoryEnabled' | 'autoMemoryEnabledSource' | 'autoMemoryEnabledFrom'>;

/** Which setting turned auto memory off, and the file or variable it came from. */
function autoMemoryOffBy(s: AutoMemoryFacts): string {
  const from = s.autoMemoryEnabledFrom ?? s.autoMemoryEnabledSource;
  if (s.autoMemoryEnabledSource !== 'env') return `"autoMemoryEnabled": false in ${from}`;
  return from.includes(' in the env block of ') ? from : `${from}, set in the environment`;
}

/**
 * Why Claude Code loads no memory index for a project (R-INDEX: with auto memory off it injects
 * none), naming the setting and the file or variable it came from; null when auto memory is on.
 */
export function autoMemoryOffSentence(s: AutoMemoryFacts): string | null {
  if (s.autoMemoryEnabled) return null;
  return `Auto memory is off for this project (${autoMemoryOffBy(s)}), so Claude Code loads no MEMORY.md at session start: the agent sees none of this index.`;
}

/**
 * Why no sub-agent gets its memory (R-AGENT): with auto memory off Claude Code 2.1.332 gives a
 * sub-agent no memory section and makes no folder (test/fixtures/claude-code-agent/); null when on.
 */
export function agentMemoryOffSentence(s: AutoMemoryFacts): string | null {
  if (s.autoMemoryEnabled) return null;
  return `Auto memory is off (${autoMemoryOffBy(s)}), so Claude Code gives no sub-agent its memory: the folders below are neither loaded nor written until it is on again.`;
}

/**
 * When the repository's own settings move the memory: Claude Code follows them in `claude -p`, and
 * in a session only once the folder is trusted (no session starts there before). Null
 * when the directory comes from anywhere else.
 */
export function autoMemoryDirectoryTrustSentence(s: Pick<ProjectSettings, 'autoMemoryDirectorySource' | 'autoMemoryDirectoryTrust'>): string | null {
  const trust = s.autoMemoryDirectoryTrust;
  if (!trust) return null;
  const which = s.autoMemoryDirectorySource === 'project' ? "the repository's shared settings" : "the repository's local settings";
  const rule = `Claude Code follows ${which} in \`claude -p\`, and in a session once you trust the folder`;
  if (trust.trusted) return `${rule}: it is trusted (${trust.folder} in ${trust.config}).`;
  return `${rule}: it is not trusted yet${trust.config ? ` (${trust.config} records no trust for it)` : ''}; a session there first asks you to trust it (Claude Code does not start until you do), then uses this directory.`;
}

/**
 * One line per settings file Claude Code does not apply (not valid JSON, unreadable, or dropped
 * whole for a value its schema rejects: settings-files.ts), naming the file: what none of its
 * settings does is then not in force, whatever it says.
 */
export function unappliedSettingsLines(s: Pick<ProjectSettings, 'problems'>): string[] {
  return s.problems.map((p) => `${p.file}: ${p.message}`);
}
