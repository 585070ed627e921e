/**
 * Where the window may go: the one rule for every way a page can try to leave the app (a link,
 * `location =`, a frame navigating, a server redirect, `window.open`). The app lives at
 * `app://memdir/`; nothing else ever loads in its window. A link to the web a person clicked
 * opens in their browser — only through {@link browserLink}, from a click (a navigation of the
 * main frame or a new window), never from a redirect or a frame.
 *
 * Plain Node: nothing here imports `electron`; main.ts wires it to the window's events.
 */

/** The app's own scheme and host (main.ts registers the scheme and serves the renderer from it). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'memdir';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * Whether `url` is one of the app's own pages. Compared by scheme and host: Node's URL (main's)
 * does not know Electron's registered schemes, and gives `app://memdir/…` the origin "null".
 */
export function isAppUrl(url: string): boolean {
  const parsed = parse(url);
  return parsed !== null && parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
}

/** The address to open in the user's browser for a link to the web (http or https), else null. */
export function browserLink(url: string): string | null {
  const parsed = parse(url);
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return null;
  return parsed.href;
}

/** How the page tried to leave: Electron's event (`window-open`: the window-open handler). */
export type NavigationKind = 'navigate' | 'frame-navigate' | 'redirect' | 'window-open';

export interface NavigationVerdict {
  /** Let it load in the window: only the app's own pages, and never in a new window. */
  allow: boolean;
  /** Open this in the user's browser instead (a web link a person followed), or null. */
  openInBrowser: string | null;
}

/**
 * What to do with a navigation to `url`. The main frame following a link (`navigate`) or a new
 * window (`window-open`) to the web opens the user's browser; a frame or a redirect is refused
 * without one (neither is a person's click, and `navigate` already saw the main frame's).
 */
export function navigationVerdict(kind: NavigationKind, url: string): NavigationVerdict {
  if (kind !== 'window-open' && isAppUrl(url)) return { allow: true, openInBrowser: null };
  const followed = kind === 'navigate' || kind === 'window-open';
  return { allow: false, openInBrowser: followed ? browserLink(url) : null };
}
