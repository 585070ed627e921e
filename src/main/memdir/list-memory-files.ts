/**
 * Which files of a memory directory are memories (R-RECALL-SELECT, R-LAYOUT): every `*.md` under
 * it, subfolders included (`retros/x.md`), any `MEMORY.md` excluded — Claude Code's recall
 * considers exactly those. The private directory leaves `team/` out: that is team memory,
 * scanned on its own. Dot-entries (`.consolidate-lock`, temp files, `.git`) are not memories, and
 * linked directories are never entered (a link could lead anywhere).
 */
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';

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
}

/**
 * List a memory directory. Throws only when the directory itself cannot be listed (the caller
 * turns that into a problem); a subfolder that cannot be listed becomes a stray.
 */
export function listMemoryFiles(memoryDir: string, options: { excludeTeam: boolean }): MemoryFileListing {
  const listing: MemoryFileListing = { index: null, topics: [], strays: [] };
  const walk = (rel: string, depth: number) => {
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(rel ? path.join(memoryDir, rel) : memoryDir, { withFileTypes: true });
    } catch (error) {
      if (!rel) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      listing.strays.push({
        file: `${rel}/`,
        reason:
          code === 'EACCES' || code === 'EPERM' ? 'Memdir has no permission to list this folder' : `this folder could not be listed (${code ?? String(error)})`,
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
