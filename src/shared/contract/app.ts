/** The app itself: where it looks, the demo workspace, its own settings. */
import * as z from 'zod';
import { mutation, query } from './define.js';

export const appInfoSchema = z.object({
  version: z.string(),
  /** The Claude Code home in use (R-HOME unless changed in Settings). */
  home: z.string(),
  homeExists: z.boolean(),
  /** Where the home choice came from. */
  homeSource: z.enum(['default', 'env', 'flag', 'settings', 'demo']),
  dataDir: z.string(),
  /** The demo workspace, once created. */
  demoHome: z.string().nullable(),
  platform: z.string(),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const appContract = {
  'app.info': query('Where the app looks and what it is running on.', z.object({}), appInfoSchema),
  'app.openDemo': mutation(
    "Create (once) a demo Claude Code home in Memdir's data dir — several projects, English and Chinese memories, transcripts, a few health problems — and switch to it.",
    z.object({}),
    appInfoSchema,
  ),
  'app.setHome': mutation(
    'Switch to another Claude Code home; null goes back to the default.',
    z.object({ home: z.string().min(1).max(4096).nullable() }),
    appInfoSchema,
  ),
};
