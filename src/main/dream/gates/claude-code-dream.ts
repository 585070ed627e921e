/**
 * R-DREAM-GATE, the other half: whether Claude Code *itself* would consolidate a project on its
 * own — apart from whether Memdir may (dream-gates.ts). Claude Code decides from its cached
 * server flag `tengu_onyx_plover` (kept in `.claude.json` under the config dir, or `~/.claude.json`)
 * and the `autoDreamEnabled` setting, by a rule that changed between versions:
 *
 * - 2.1.88 and before: the setting when present, else the flag's `enabled` (cached under
 *   `cachedGrowthBookFeatures`), else off;
 * - later (2.1.332 checked): off unless the flag (`cachedFeatureFlags`, or the older key) is
 *   `enabled` or `available`; then the setting when present, else the flag's `enabled`.
 *
 * Either way auto memory must be on; 2.1.332 also never dreams outside interactive sessions or
 * with telemetry off ({@link ONLY_INTERACTIVE}), which Memdir states rather than sees, nor where a
 * permission rule would refuse its memory writes ({@link memoryWriteRefusal}). The version is the one the project's newest transcript
 * records; without one the newest known rule applies. The flag may also carry its own
 * `minHours` / `minSessions` (positive numbers), which replace 24 h and 5 sessions.
 */
import fs from 'node:fs';
import type { ClaudeCodeDreamStatus } from '../../../shared/contract/dream.js';
import path from 'node:path';
import { type EffectiveSettings, type PermissionRule, expandTilde } from '../../memdir/index.js';
import { claudeCodeVersionIn } from '../../transcripts/index.js';
import { organizationMarkIn } from './organization-marks.js';

/**
 * Where 2.1.332 never dreams whatever its flag and setting say (test/fixtures/claude-code-dream/:
 * `claude -p` and a session with telemetry off, observed; the rest read from its code). Memdir
 * cannot see the environment Claude Code is started with, so it says so rather than guess.
 */
export const ONLY_INTERACTIVE =
  'It dreams only in interactive sessions: never in claude -p or through the Agent SDK, nor where telemetry or feature flags are turned off (DISABLE_TELEMETRY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, DO_NOT_TRACK, a Bedrock, Vertex or Foundry provider) unless CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF is set.';

/** The flag's name in Claude Code's feature cache. */
export const AUTO_DREAM_FLAG = 'tengu_onyx_plover';

export type { ClaudeCodeDreamStatus };

/** `.claude.json` where Claude Code keeps its caches for this home: in the config dir, or beside the default `~/.claude`. */
export function globalConfigFiles(home: string): string[] {
  const files = [path.join(home, '.claude.json')];
  if (path.basename(home) === '.claude') files.push(path.join(path.dirname(home), '.claude.json'));
  return files;
}

function readJsonObject(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function flagIn(cache: unknown): ClaudeCodeDreamStatus['flag'] | undefined {
  if (!cache || typeof cache !== 'object' || !(AUTO_DREAM_FLAG in cache)) return undefined;
  const value = (cache as Record<string, unknown>)[AUTO_DREAM_FLAG];
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const positive = (n: unknown): number | null => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null);
  return { enabled: v.enabled === true, available: v.available === true, minHours: positive(v.minHours), minSessions: positive(v.minSessions) };
}

/** Whether version `a` is at most `b` (dotted numbers; anything else compares as newer). */
function atMost(a: string, b: string): boolean {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (!Number.isFinite(x)) return false;
    if (x !== y) return x < y;
  }
  return true;
}

/** The index file 2.1.332 asks its permission rules about: a rule refusing to edit it stops the dream. */
const INDEX_FILE = 'MEMORY.md';

/** A path glob of a permission rule as a pattern over absolute paths: `**` any depth, `*` and `?` within one name. */
function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else out += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Whether an `Edit(…)` path pattern covers `file` or a folder above it (gitignore style), for the patterns Memdir can place: `//absolute` and `~/home`. */
function editPatternCovers(pattern: string, file: string): boolean {
  let absolute: string;
  if (pattern.startsWith('//')) absolute = pattern.slice(1);
  else if (pattern.startsWith('~/')) absolute = expandTilde(pattern).split(path.sep).join('/');
  else return false; // Relative to a settings file or the working directory: not modelled.
  const re = globToRegExp(absolute.replace(/\/+$/, ''));
  for (let p = file; ; p = path.posix.dirname(p)) {
    if (re.test(p)) return true;
    if (path.posix.dirname(p) === p) return false;
  }
}

/**
 * R-DREAM-GATE, 2.1.332's gate after the session count: the first deny or ask rule that would
 * refuse its memory writes, or null. Observed with the client (test/fixtures/claude-code-dream/):
 * `Write` or `Edit` alone, denied or asked, in user, project or local settings; an `Edit(…)` rule
 * whose path covers the memory folder's MEMORY.md (`Edit(//…/memory/**)`, `Edit(//…/MEMORY.md)`).
 * Not a `Write(…)` path rule, nor an `Edit(…)` of another file in the folder. Its order: `Write`
 * then `Edit` alone (deny before ask), then path rules (deny before ask).
 */
export function memoryWriteRefusal(rules: readonly PermissionRule[], memoryDir: string): PermissionRule | null {
  for (const tool of ['Write', 'Edit'])
    for (const behavior of ['deny', 'ask'] as const) {
      const found = rules.find((r) => r.behavior === behavior && r.rule.trim() === tool);
      if (found) return found;
    }
  const spellings = new Set([memoryDir]);
  try {
    spellings.add(fs.realpathSync(memoryDir));
  } catch {
    // Not there yet: its spelling as given is the one a session would use.
  }
  const files = [...spellings].map((dir) => path.join(dir, INDEX_FILE).split(path.sep).join('/'));
  for (const behavior of ['deny', 'ask'] as const)
    for (const r of rules) {
      const m = /^Edit\((.*)\)$/.exec(r.rule.trim());
      if (r.behavior === behavior && m && files.some((f) => editPatternCovers(m[1]!, f))) return r;
    }
  return null;
}

/** See the module comment. Never throws: a missing or broken `.claude.json` means no flag. */
export async function claudeCodeDreamStatus(input: {
  home: string;
  settings: Pick<EffectiveSettings, 'autoMemoryEnabled' | 'autoDreamEnabled' | 'autoDreamEnabledSource' | 'autoDreamEnabledFrom'> &
    Partial<Pick<EffectiveSettings, 'permissionRules'>>;
  transcriptDirs: readonly string[];
  /** The memory folder, which permission rules may cover; without it they are not looked at. */
  memoryDir?: string;
}): Promise<ClaudeCodeDreamStatus> {
  const { version } = await claudeCodeVersionIn(input.transcriptDirs);
  const rule: ClaudeCodeDreamStatus['rule'] = version !== null && atMost(version, '2.1.88') ? '2.1.88' : '2.1.332';
  let flag: ClaudeCodeDreamStatus['flag'] = null;
  let flagFile: string | null = null;
  for (const file of globalConfigFiles(input.home)) {
    const config = readJsonObject(file);
    if (!config) continue;
    const found = rule === '2.1.88' ? flagIn(config.cachedGrowthBookFeatures) : (flagIn(config.cachedFeatureFlags) ?? flagIn(config.cachedGrowthBookFeatures));
    flagFile = file;
    flag = found ?? null;
    break;
  }
  const setting = input.settings.autoDreamEnabledSource === 'default' ? null : input.settings.autoDreamEnabled;
  const settingFrom = setting === null ? null : input.settings.autoDreamEnabledFrom;
  const base = { version, rule, flag, flagFile, setting, settingFrom, refusedBy: null, organizationMarks: [] };
  // A person's words: the setting as they edit it (where), the server flag by what it is, not its name (a server-side name is not theirs).
  const flagWords = flag
    ? `the switch cached from Anthropic's servers (${flag.enabled ? 'on' : 'off'}${flag.available ? ', available' : ''})`
    : `no switch cached from Anthropic's servers${flagFile ? ` in ${flagFile}` : ''}`;
  const settingWords = `Auto-dream (autoDreamEnabled in ${settingFrom ?? path.join(input.home, 'settings.json')}) is ${setting === null ? 'not set' : setting ? 'on' : 'off'}`;
  if (!input.settings.autoMemoryEnabled) return { ...base, wouldDream: false, reason: 'Auto memory is off, so Claude Code never consolidates it.' };
  if (rule === '2.1.88') {
    if (setting !== null) return { ...base, wouldDream: setting, reason: `Claude Code ${version} follows the setting: ${settingWords}.` };
    if (!flag)
      return {
        ...base,
        wouldDream: false,
        reason: `Claude Code ${version}: ${settingWords} and ${flagWords} turns it on, so it does not dream.`,
      };
    return { ...base, wouldDream: flag.enabled, reason: `Claude Code ${version}: ${settingWords}, so ${flagWords} decides.` };
  }
  const who = version ? `Claude Code ${version}` : 'Claude Code (the newest known rule, no transcript names a version)';
  if (!flag || (!flag.enabled && !flag.available))
    return { ...base, wouldDream: false, reason: `${who} dreams only where Anthropic's servers allow it: ${flagWords}, so never, whatever the setting.` };
  const wouldDream = setting ?? flag.enabled;
  const decided = setting !== null ? `${who}: ${flagWords} allows it, and ${settingWords}.` : `${who}: ${settingWords}, so ${flagWords} decides.`;
  if (!wouldDream) return { ...base, wouldDream, reason: decided };
  const refusedBy = input.memoryDir ? memoryWriteRefusal(input.settings.permissionRules ?? [], input.memoryDir) : null;
  if (refusedBy) {
    const words = `the ${refusedBy.behavior} rule "${refusedBy.rule}" in ${refusedBy.file}`;
    return {
      ...base,
      refusedBy,
      wouldDream: false,
      reason: `${decided} But ${words} would refuse its memory writes, so it skips its dream once enough time and sessions have passed.`,
    };
  }
  const organizationMarks: ClaudeCodeDreamStatus['organizationMarks'] = [];
  for (const folder of input.transcriptDirs) {
    const mark = await organizationMarkIn(folder);
    if (mark) organizationMarks.push({ folder, organization: mark === 'mixed' ? null : mark.organization });
  }
  const marked = organizationMarks
    .map((m) =>
      m.organization
        ? ` Sessions whose transcripts go to ${m.folder} skip it unless signed in through organization ${m.organization}'s own sign-in (a session there ran under it).`
        : ` Sessions whose transcripts go to ${m.folder} always skip it: sessions there ran under more than one organization's own sign-in.`,
    )
    .join('');
  return { ...base, organizationMarks, wouldDream, reason: `${decided} ${ONLY_INTERACTIVE}${marked}` };
}
