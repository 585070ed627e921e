/**
 * Memdir's own settings on disk: `<dataDir>/settings.json`, read and written atomically. The
 * schema and its rules live in src/shared/app-settings.ts.
 */
import { issueSentence } from '../../shared/issue-sentence.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type AppSettings, type AppSettingsPatch, appSettingsSchema, defaultAppSettings, isRecord, parseAppSettings } from '../../shared/app-settings.js';
import { writeDataFile } from '../memdir/safe-fs.js';

export * from '../../shared/app-settings.js';

/** The file name inside the data dir. */
export const APP_SETTINGS_FILE = 'settings.json';

/** Settings as read, with whatever had to be thrown away said in words. */
export interface AppSettingsLoad {
  settings: AppSettings;
  /** One sentence per value that was unreadable or invalid and replaced by its default. */
  problems: string[];
  file: string;
  exists: boolean;
}

/** `<dataDir>/settings.json`. */
export function appSettingsPath(dataDir: string): string {
  return path.join(dataDir, APP_SETTINGS_FILE);
}

/** Read the settings; a missing file is all defaults, a bad one is defaults plus problems. */
export async function loadAppSettings(dataDir: string): Promise<AppSettingsLoad> {
  const file = appSettingsPath(dataDir);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { settings: defaultAppSettings(), problems: [], file, exists: false };
    return {
      settings: defaultAppSettings(),
      problems: [`${file} cannot be read (${code ?? String(error)}); every setting is at its default.`],
      file,
      exists: true,
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      settings: defaultAppSettings(),
      problems: [`${file} is not valid JSON (${detail}); every setting is at its default until it is saved again.`],
      file,
      exists: true,
    };
  }
  return { ...parseAppSettings(raw), file, exists: true };
}

/** Write the settings atomically (after validating them: an invalid value is never saved). */
export async function saveAppSettings(dataDir: string, settings: AppSettings): Promise<void> {
  const valid = appSettingsSchema.parse(settings);
  await writeDataFile(appSettingsPath(dataDir), `${JSON.stringify(valid, null, 2)}\n`);
}

function mergeDeep(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    out[key] = isRecord(value) && isRecord(base[key]) ? mergeDeep(base[key] as Record<string, unknown>, value) : value;
  }
  return out;
}

/**
 * Apply a partial change and save. An invalid change is refused as a whole and nothing is
 * written: the result names each invalid value.
 */
export async function updateAppSettings(
  dataDir: string,
  patch: AppSettingsPatch,
): Promise<{ ok: true; settings: AppSettings } | { ok: false; problems: string[] }> {
  const { settings } = await loadAppSettings(dataDir);
  const merged = mergeDeep(settings as Record<string, unknown>, patch as Record<string, unknown>);
  const result = appSettingsSchema.safeParse(merged);
  if (!result.success) {
    return { ok: false, problems: result.error.issues.map((i) => `Setting ${issueSentence(i)}.`) };
  }
  await saveAppSettings(dataDir, result.data);
  return { ok: true, settings: result.data };
}
