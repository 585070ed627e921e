/**
 * Which files of a memory directory are memories (R-RECALL-SELECT, R-LAYOUT): every `*.md` under
 * it, subfolders included (`retros/x.md`), any `MEMORY.md` excluded — Claude Code's recall
 * considers exactly those. The private directory leaves `team/` out: that is team memory,
 * scanned on its own. Dot-entries (`.consolidate-lock`, temp files, `.git`) are not memories, and
 * linked directories are never entered (a link could lead anywhere). Claude Code 2.1.332 does
 * enter a folder linked to one outside the memory directory and offers what it holds to its
 * recall (test/fixtures/claude-code/recall-links-2.1.332.json): such a link is listed as a stray,
 * saying so, never left out in silence. A link to a folder inside is not: its files are listed
 * where they are, and the client does not list them twice.
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FILE, SKIPPED_TOP_FOLDERS, TEAM_DIR } from '../../shared/limits.js';

/** How deep subfolders are followed; deeper ones are reported, not silently skipped. */
export const MAX_MEMORY_DEPTH = 8;

/** What a listing found. Paths are relative to the memory directory, with `/`. */
export interface MemoryFileListing {
  /** The directory's own `MEMORY.md`, when it is there and not a directory. */
  index: { isSymlink: boolean } | null;
  /** Topic files, sorted by path. */
  topics: { file: string; isSymlink: boolean }[];
  /** Entries that look like memories but cannot be read as files, with why. */
  strays: { file: string; reason: string }[];
  /**
   * Every folder listed, the directory itself first (`''`), with its stat facts taken before it was
   * listed: while none of them changes, nothing was added, removed or renamed in them, so the
   * listing is the same (the scan cache file keeps them, scan-cache.ts). A folder that could not
   * be stat'ed or listed has `ino` -1: it never matches.
   */
  folders: FolderFacts[];
}

/** A folder's path relative to the memory directory (`''`: the directory itself), mtimeMs, ctimeMs, ino. */
export type FolderFacts = [string, number, number, number];

/** The facts of the folder at `abs` as a listing records them (ino -1: unknown). */
export function folderFacts(rel: string, abs: string): FolderFacts {
  try {
    const st = fs.statSync(abs, { throwIfNoEntry: false });
    if (st?.isDirectory()) return [rel, st.mtimeMs, st.ctimeMs, st.ino];
  } catch {
    // Unknown: never matches.
  }
  return [rel, -1, -1, -1];
}

/**
 * List a memory directory. Throws only when the directory itself cannot be listed (the caller
 * turns that into a problem); a subfolder that cannot be listed becomes a stray.
 */
export function listMemoryFiles(memoryDir: string, options: { excludeTeam: boolean }): MemoryFileListing {
  const listing: MemoryFileListing = { index: null, topics: [], strays: [], folders: [] };
  let rootReal: string | null | undefined;
  /** Whether the link at `rel` leads to a folder outside the memory directory (what the client follows and Memdir does not). */
  const linksOutToFolder = (rel: string): boolean => {
    try {
      const target = fs.realpathSync(path.join(memoryDir, rel));
      if (!fs.statSync(target).isDirectory()) return false;
      rootReal ??= fs.realpathSync(memoryDir);
      const inside = path.relative(rootReal, target);
      return inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside);
    } catch {
      return false; // dangling, a loop, no permission: nothing the client could list either
    }
  };
  const walk = (rel: string, depth: number) => {
    let dirents: fs.Dirent[];
    const abs = rel ? path.join(memoryDir, rel) : memoryDir;
    // Before the listing: a change made while it runs moves these facts, and the next process lists again.
    const facts = folderFacts(rel, abs);
    listing.folders.push(facts);
    try {
      dirents = fs.readdirSync(abs, { withFileTypes: true });
    } catch (error) {
      if (!rel) throw error;
      facts[3] = -1;
      const code = (error as NodeJS.ErrnoException).code;
      listing.strays.push({
        file: `${rel}/`,
        reason:
          code === 'EACCES' || code === 'EPERM' ? 'Memdir has no permission to list this folder' : `this folder could not be listed (${failureWords(error)})`,
      });
      return;
    }
    for (const d of dirents) {
      const name = d.name;
      if (name.startsWith('.')) continue;
      const file = rel ? `${rel}/${name}` : name;
      if (d.isDirectory()) {
        if (!rel && options.excludeTeam && name === TEAM_DIR) continue;
        if (/\.md$/i.test(name)) {
          listing.strays.push({ file, reason: 'it is a directory, not a file' });
          continue;
        }
        if (depth >= MAX_MEMORY_DEPTH)
          listing.strays.push({ file: `${file}/`, reason: `it is more than ${MAX_MEMORY_DEPTH} folders deep; Memdir does not look inside` });
        else walk(file, depth + 1);
        continue;
      }
      if (d.isSymbolicLink() && !/\.md$/i.test(name)) {
        const skipped = !rel && ((options.excludeTeam && name === TEAM_DIR) || SKIPPED_TOP_FOLDERS.includes(name));
        if (!skipped && linksOutToFolder(file))
          listing.strays.push({
            file: `${file}/`,
            reason:
              'it is a symbolic link to a folder outside the memory directory, so Memdir does not look inside; Claude Code follows it and offers the memories there to recall',
          });
        continue;
      }
      if (!/\.md$/i.test(name)) continue;
      if (name === INDEX_FILE) {
        // Only the directory's own index is the index; a subfolder's MEMORY.md is neither index nor memory.
        if (!rel) listing.index = { isSymlink: d.isSymbolicLink() };
        continue;
      }
      if (d.isFile() || d.isSymbolicLink()) listing.topics.push({ file, isSymlink: d.isSymbolicLink() });
      else listing.strays.push({ file, reason: 'it is not a regular file' });
    }
  };
  walk('', 0);
  listing.topics.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return listing;
}
