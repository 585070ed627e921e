/**
 * Claude Code's own settings that Memdir writes for the user (beyond the hooks): the
 * `autoDreamEnabled` switch (R-DREAM-GATE), written to the user's `settings.json` as a minimal
 * edit of that one value and read back through the settings reader.
 */
import * as z from 'zod';
import { mutation, query } from './define.js';

/** `autoDreamEnabled` in the user's Claude Code settings. */
export const autoDreamSettingSchema = z.object({
  settingsFile: z.string(),
  /** The value written in the file, or null when it says nothing. */
  value: z.boolean().nullable(),
  /** The value in force from the user's settings (the default when the file says nothing). */
  inForce: z.boolean(),
  /** Why the file cannot be changed, in words. */
  problems: z.array(z.string()),
  /** What the user should know (Claude Code ignores a file with comments, …). */
  warnings: z.array(z.string()),
});
export type AutoDreamSetting = z.infer<typeof autoDreamSettingSchema>;

export const claudeSettingsContract = {
  'claudeSettings.autoDream': query("autoDreamEnabled in the user's Claude Code settings.json, and the value in force.", z.object({}), autoDreamSettingSchema),
  'claudeSettings.setAutoDream': mutation(
    "Write autoDreamEnabled to the user's settings.json (only that value changes; the previous file is kept beside it). Refused for a file that does not parse.",
    z.object({ enabled: z.boolean() }),
    autoDreamSettingSchema.extend({ changed: z.boolean(), backup: z.string().nullable() }),
  ),
};
