/**
 * Whether Claude Code recalls topic files at all. In 2.1.332 its selector runs only when auto
 * memory is on and either its server-side feature flag `tengu_moth_copse` is on (Anthropic's
 * servers set it; Claude Code caches the value in `.claude.json` under
 * `cachedGrowthBookFeatures`, older files `cachedFeatureFlags`) or `CLAUDE_MEMORY_STORES` is set to
 * anything but blanks, in the shell or a settings file's `env` block (recorded with the flag off:
 * test/fixtures/claude-code/stores-setting-2.1.332.json).
 * Otherwise only MEMORY.md reaches the agent, whatever a selector would choose. The cached flag
 * is the best Memdir can know; Claude Code may hold a fresher value from its servers, and with
 * telemetry turned off it does not read the cache at all (unless
 * CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF is set), so its recall is off then.
 */
import fs from 'node:fs/promises';
import { claudeConfigFiles, type EffectiveSettings, inStoreMode } from '../../memdir/index.js';
import { failureWords, notJsonWords } from '../../../shared/failure-words.js';

/** What Memdir can tell about Claude Code's own recall switch. */
export interface ClaudeCodeRecallSwitch {
  state: 'on' | 'off' | 'unknown';
  /** In words, with where it came from. */
  reason: string;
}

const FLAG = 'tengu_moth_copse';

/**
 * Read Claude Code's recall switch for a project of a home, from its effective settings (settings.ts:
 * auto memory, and `CLAUDE_MEMORY_STORES` from the shell or any settings file's `env` block). Never throws.
 */
export async function readClaudeCodeRecallSwitch(
  home: string,
  env: NodeJS.ProcessEnv,
  settings: Pick<EffectiveSettings, 'autoMemoryEnabled' | 'memoryStores'>,
): Promise<ClaudeCodeRecallSwitch> {
  if (!settings.autoMemoryEnabled) return { state: 'off', reason: 'Auto memory is off for this project, so Claude Code recalls no memory at all.' };
  // Any value but blanks, even one the client cannot use as a store list (recorded: stores-setting-2.1.332.json).
  if (inStoreMode(settings.memoryStores)) {
    const where =
      settings.memoryStores.from === 'CLAUDE_MEMORY_STORES' ? 'in the environment' : settings.memoryStores.from.replace(/^CLAUDE_MEMORY_STORES /, '');
    return { state: 'on', reason: `CLAUDE_MEMORY_STORES is set (${where}), which turns Claude Code's recall on.` };
  }
  // The first config file there is the one Claude Code uses (claudeConfigFiles), readable or not. One that is
  // there but cannot be read is said so, never "not found" — and never passed over for the next: Claude Code
  // 2.1.332 does not start with a .claude.json it cannot parse (recorded:
  // test/fixtures/claude-code/config-unparseable-2.1.332.json); what it does with one it cannot read at all
  // (a folder by that name, no permission) is not recorded, so nothing is claimed.
  for (const file of claudeConfigFiles(home, env)) {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return {
        state: 'unknown',
        reason: `Claude Code's config ${file} is there but cannot be read: ${failureWords(error)}, so whether its recall is switched on is unknown.`,
      };
    }
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch (error) {
      return {
        state: 'unknown',
        reason: `Claude Code's config ${file} is there but cannot be read: ${notJsonWords(text, error)}. Claude Code 2.1.332 does not start with it (a configuration error) until it is fixed or moved aside, so whether its recall is switched on is unknown.`,
      };
    }
    const record = (config ?? {}) as Record<string, unknown>;
    const flags = (record.cachedGrowthBookFeatures ?? record.cachedFeatureFlags) as Record<string, unknown> | undefined;
    const value = flags && typeof flags === 'object' ? flags[FLAG] : undefined;
    if (value === true) {
      return {
        state: 'on',
        reason: `Claude Code's server flag for recall is on (cached in ${file}); a Claude Code run with DISABLE_TELEMETRY or CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC set does not read it, and recalls nothing then.`,
      };
    }
    return {
      state: 'off',
      reason: `Claude Code's server flag for recall is ${value === undefined ? 'not cached' : 'off'} in ${file}: Claude Code 2.1.332 then loads MEMORY.md only and asks no selector. This shows what it would load once the flag is on.`,
    };
  }
  return { state: 'unknown', reason: 'No Claude Code config (.claude.json) was found, so whether its recall is switched on is unknown.' };
}
