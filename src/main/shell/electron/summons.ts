/**
 * What asks for the window from outside: a second start of Memdir (`second-instance`: `npm start`
 * again, the launcher icon, a `memdir://` link on Linux and Windows) and a link macOS hands over
 * (`open-url`). Either can come at any moment of the first start's opening — before `ready`,
 * while the app's services load — when there is no window yet to bring forward: main.ts listens
 * from its first line, and what came before the window is done once it is there
 * ({@link Summons.attach}), never dropped.
 *
 * Plain Node: nothing here imports `electron`.
 */

/** What the window does when asked for (main.ts). */
export interface SummonedWindow {
  /** Show it, restored and in front. */
  bringForward: () => void;
  /** Go to the place a `memdir://` link names (it brings the window forward too). */
  openLink: (url: string) => void;
}

export class Summons {
  private window: SummonedWindow | null = null;
  private forward = false;
  private link: string | null = null;

  /** Another start of Memdir asked for the window, with the link in its arguments (or null). */
  secondStart(link: string | null): void {
    if (link) this.openLink(link);
    else if (this.window) this.window.bringForward();
    else this.forward = true;
  }

  /** A `memdir://` link to open (the last one asked before the window is the one opened). */
  openLink(url: string): void {
    if (this.window) this.window.openLink(url);
    else this.link = url;
  }

  /** The window is there: what was asked before it is done now, and what comes later at once. */
  attach(window: SummonedWindow): void {
    this.window = window;
    const { link, forward } = this;
    this.link = null;
    this.forward = false;
    if (link) window.openLink(link);
    else if (forward) window.bringForward();
  }
}
