/**
 * `autoDreamEnabled` in the user's Claude Code settings (R-DREAM-GATE): the Settings view's
 * switch writes it — through the one settings-file writer, a minimal edit of that one value —
 * and reads it back through the settings reader (memdir/settings.ts), so what the switch shows
 * is what Memdir's scheduler and Claude Code's 2.1.88 rule will read.
 */
import { readEffectiveSettings, type SettingsCache } from '../memdir/index.js';
import { SettingsFileError, applySettingsEdit, planSettingsEdit, readSettingsFile, userSettingsFile } from './claude-settings-file.js';
import type { JsoncDocument } from './jsonc-edit.js';

/** What the user's settings say about dreaming on a schedule. */
export interface AutoDreamSetting {
  settingsFile: string;
  /** The value written in the user's settings.json, or null when it says nothing. */
  value: boolean | null;
  /** The value in force from the user's settings (the reader's default when it says nothing). */
  inForce: boolean;
  /** Why the file cannot be changed, in words. */
  problems: string[];
  /** What the user should know (Claude Code ignores a file with comments, …). */
  warnings: string[];
}

/** Read `autoDreamEnabled` from `<home>/settings.json`. Never throws. */
export async function readAutoDreamSetting(home: string, env: NodeJS.ProcessEnv, cache?: SettingsCache): Promise<AutoDreamSetting> {
  const read = await readSettingsFile(userSettingsFile(home));
  const raw = read.doc?.value(['autoDreamEnabled']);
  const effective = await readEffectiveSettings(home, null, env, { cache });
  return {
    settingsFile: read.file,
    value: typeof raw === 'boolean' ? raw : null,
    inForce: effective.autoDreamEnabled,
    problems: read.problems,
    warnings: read.warnings,
  };
}

/**
 * Write `autoDreamEnabled: <enabled>` to `<home>/settings.json` (the previous file kept beside it
 * as `settings.json.memdir-backup`), then read it back.
 * @throws {SettingsFileError} for a file Memdir must not change, or one that changed meanwhile.
 */
export async function writeAutoDreamSetting(
  home: string,
  enabled: boolean,
  env: NodeJS.ProcessEnv,
): Promise<AutoDreamSetting & { changed: boolean; backup: string | null }> {
  const file = userSettingsFile(home);
  const edit = (doc: JsoncDocument) => doc.set([], 'autoDreamEnabled', enabled);
  const plan = await planSettingsEdit(file, edit);
  if (plan.problems.length > 0) throw new SettingsFileError('invalid-file', plan.problems.join(' '));
  const result = await applySettingsEdit(file, plan.baseHash, edit);
  return { ...(await readAutoDreamSetting(home, env)), changed: result.changed, backup: result.backup };
}
