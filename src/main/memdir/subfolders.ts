/**
 * The one way a folder's subfolders are listed (a Claude home's projects, an agent memory
 * folder's agent types): sorted by name, dot-entries skipped (Memdir's and the system's, never a
 * memory). A name that is not UTF-8 is skipped too: no path Claude Code writes has one, and read
 * as text it would name another folder. A symbolic link to a folder is listed, marked `link` —
 * Claude Code reads and writes through it, so it is memory — and the caller decides: listing
 * follows it, moving never does (merge-apply's readArea). A missing or unreadable folder, or a
 * file in its place, has no subfolders: []; a link that cannot be followed (a loop, through a file) is
 * skipped, never a reason to fail the whole listing.
 */
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';

export interface Subfolder {
  name: string;
  /** A symbolic link to a folder, not the folder itself. */
  link: boolean;
}

export function listSubfolders(dir: string): Subfolder[] {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
  } catch {
    return [];
  }
  const out: Subfolder[] = [];
  for (const entry of entries) {
    const raw = entry.name;
    if (!isUtf8(raw)) continue;
    const name = raw.toString('utf8');
    if (name.startsWith('.')) continue;
    if (entry.isDirectory()) out.push({ name, link: false });
    else if (entry.isSymbolicLink() && leadsToFolder(path.join(dir, name))) out.push({ name, link: true });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Whether the link at `link` leads to a folder; a link that cannot be followed (dangling, a loop, through a file, no permission) does not. */
function leadsToFolder(link: string): boolean {
  try {
    return fs.statSync(link, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
