/**
 * `memdir://project/<dir>` links (registered by the installed app, electron-builder.config.ts):
 * the single instance opens the project, or says in the app why it cannot.
 */
import { routeToHash } from '../../shared/routes.js';

/** The link scheme Memdir registers. */
export const DEEP_LINK_SCHEME = 'memdir';

/** Where a link sends the window, and what to tell the user there. */
export interface DeepLinkTarget {
  hash: string;
  message: string | null;
}

/** The first `memdir://` link among command-line arguments (Windows and Linux pass links so). */
export function deepLinkIn(argv: readonly string[]): string | null {
  return argv.find((arg) => arg.toLowerCase().startsWith(`${DEEP_LINK_SCHEME}://`)) ?? null;
}

/** The project directory name a link names, or null when it is not `memdir://project/<dir>`. */
export function projectOfLink(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${DEEP_LINK_SCHEME}:` || parsed.hostname !== 'project') return null;
  // Some systems add a trailing slash to a link they pass on.
  const parts = parsed.pathname.split('/').filter(Boolean);
  if (parts.length !== 1) return null;
  try {
    return decodeURIComponent(parts[0]!);
  } catch {
    return null;
  }
}

/**
 * Where `url` sends the window: the project's memories, or the dashboard with a sentence saying
 * why not. `findProject` throws (with a message a person can read) when there is no such project.
 */
export async function deepLinkTarget(url: string, findProject: (dir: string) => Promise<unknown>): Promise<DeepLinkTarget> {
  const dir = projectOfLink(url);
  const shown = url.length > 200 ? `${url.slice(0, 200)}…` : url;
  if (dir === null)
    return { hash: routeToHash({ view: 'dashboard' }), message: `Memdir cannot open ${shown}: its links look like memdir://project/<project folder name>.` };
  try {
    await findProject(dir);
  } catch (error) {
    return { hash: routeToHash({ view: 'dashboard' }), message: `Memdir cannot open ${shown}: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { hash: routeToHash({ view: 'project', dir, tab: 'memories' }), message: null };
}
