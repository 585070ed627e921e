/**
 * Memdir's own settings on disk: `<dataDir>/settings.json`, read and written atomically. The
 * schema and its rules live in src/shared/app-settings.ts. The app and `memdir` in a terminal
 * both save settings: a save applies its change to the file as it is at that moment, under the
 * data dir's lock (changeDataFile), so two saves at once both stay. A file that is not a JSON
 * object is read as all defaults and, when a change is saved, kept aside under a dated name
 * (`settings.json.damaged-…`) like the other data files, never overwritten: a hand edit with a
 * stray comma is still there to repair.
 */
import { failureWords, notJsonWords } from '../../shared/failure-words.js';
import { issueSentence } from '../../shared/issue-sentence.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type AppSettings, type AppSettingsPatch, appSettingsSchema, defaultAppSettings, parseAppSettings } from '../../shared/app-settings.js';
import { changeDataFile, LEAVE_AS_IS } from '../memdir/index.js';
import { isRecord } from '../../shared/is-record.js';

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
      problems: [`${file} cannot be read (${failureWords(error)}); every setting is at its default.`],
      file,
      exists: true,
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return {
      settings: defaultAppSettings(),
      problems: [
        `${file}: ${notJsonWords(text, error)}; every setting is at its default until one is saved (the file is then kept aside as ${APP_SETTINGS_FILE}.damaged-<date>).`,
      ],
      file,
      exists: true,
    };
  }
  return { ...parseAppSettings(raw), file, exists: true };
}

/** A settings file's JSON object, or null when it is not one (then it is damaged: kept aside when a change is saved). */
function parseSettingsObject(text: string): Record<string, unknown> | null {
  try {
    const raw: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    return isRecord(raw) ? raw : null;
  } catch {
    return null;
  }
}

/** Apply `change` to the settings as they are on disk now and save what it returns, under the data dir's lock. */
function changeAppSettings<W>(dataDir: string, change: (current: AppSettings) => W): Promise<W> {
  return changeDataFile(appSettingsPath(dataDir), (raw: Record<string, unknown> | null) => change(parseAppSettings(raw ?? undefined).settings), {
    dataDir,
    parse: parseSettingsObject,
  });
}

/** Save these settings whole, atomically (after validating them: an invalid value is never saved). */
export async function saveAppSettings(dataDir: string, settings: AppSettings): Promise<void> {
  const valid = appSettingsSchema.parse(settings);
  await changeAppSettings(dataDir, () => valid);
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
  // The patch is applied to the file as it is now, not to a copy read earlier: another save that
  // landed meanwhile stays. An invalid patch writes nothing.
  let problems: string[] = [];
  const written = await changeAppSettings(dataDir, (settings) => {
    const result = appSettingsSchema.safeParse(mergeDeep(settings as Record<string, unknown>, patch as Record<string, unknown>));
    if (result.success) return result.data;
    problems = result.error.issues.map((i) => `Setting ${issueSentence(i)}.`);
    return LEAVE_AS_IS;
  });
  return written === LEAVE_AS_IS ? { ok: false, problems } : { ok: true, settings: written };
}
