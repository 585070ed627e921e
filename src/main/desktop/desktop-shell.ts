/**
 * What only the desktop app can do, handed to the services by the Electron shell
 * (src/main/shell/electron, the only code importing `electron`). The headless host has none, so
 * the calls that need it answer `unavailable`; everything deciding *what* to do lives beside this
 * file in plain Node, tested without Electron.
 */
import type { Theme } from '../../shared/app-settings.js';

export interface DesktopShell {
  /** Show the file in the system's file manager (Electron's `shell.showItemInFolder`). */
  revealFile(file: string): void;
  /** Open the file with the system's program for it; resolves to an error text, '' when it opened. */
  openFile(file: string): Promise<string>;
  /** Whether Memdir starts at login; null where the system cannot say. */
  openAtLogin(): Promise<boolean | null>;
  setOpenAtLogin(on: boolean): Promise<void>;
  /** Native menus, dialogs and the page's `prefers-color-scheme` follow this (`nativeTheme`). */
  applyTheme(theme: Theme): void;
}
