/**
 * What only the desktop app does: keep running in the tray while background work is on, start at
 * login, open a memory in other programs, install the `memdir` command. In the headless host the
 * status says `available: false` and the actions answer `unavailable`.
 */
import * as z from 'zod';
import { dirRef, fileName } from './common.js';
import { mutation, query } from './define.js';

export const commandInstallSchema = z.object({
  /** An installed app can put its `memdir` command on PATH; a checkout has `npx memdir`. */
  installable: z.boolean(),
  /** Where the command goes (a link to the app's own script). */
  path: z.string().nullable(),
  installed: z.boolean(),
  /** Why it cannot be installed, or what the user still has to do (PATH), in words. */
  note: z.string().nullable(),
});
export type CommandInstall = z.infer<typeof commandInstallSchema>;

export const desktopStatusSchema = z.object({
  /** The desktop app (true) or the headless host (false). */
  available: z.boolean(),
  /**
   * What runs only while Memdir runs, in words ("extracting memories after each Claude Code
   * turn", "team sync of 2 projects"). Non-empty: closing the window keeps Memdir in the tray.
   */
  background: z.array(z.string()),
  /** Memdir starts when the user logs in; null where the system cannot say. */
  openAtLogin: z.boolean().nullable(),
  command: commandInstallSchema,
});
export type DesktopStatus = z.infer<typeof desktopStatusSchema>;

const memoryFile = dirRef.extend({ file: fileName });

export const desktopContract = {
  'desktop.status': query('What the desktop app does in the background, start at login, the memdir command.', z.object({}), desktopStatusSchema),
  'desktop.setOpenAtLogin': mutation(
    "Start Memdir when the user logs in (the system's login items), or not.",
    z.object({ on: z.boolean() }),
    desktopStatusSchema,
  ),
  'desktop.installCommand': mutation(
    "Put the installed app's memdir command on PATH (a link in the user's bin folder); never replaces another file.",
    z.object({}),
    desktopStatusSchema,
  ),
  'desktop.revealMemory': mutation("Show a memory file in the system's file manager.", memoryFile, z.object({ path: z.string() })),
  'desktop.openMemory': mutation('Open a memory file in the program the system uses for Markdown.', memoryFile, z.object({ path: z.string() })),
};
