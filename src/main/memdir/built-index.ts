/**
 * The index Claude Code 2.1.332 writes at session start when a memory folder has no MEMORY.md
 * (the rule: src/shared/index-build.ts), predicted from a scan's memories: the scan (its loaded
 * and unlisted memories, Health, lint, `memdir show`) and `memdir show --loaded` / the app's
 * index tab ask here, so they agree. Memdir writes nothing: Claude Code does, once.
 *
 * The description is the one Memdir's frontmatter reader gives: the top-level one, never one under
 * `metadata:` (as the client: observed-built.json, nested-keys). Not replicated: Claude Code orders
 * files of one mtime as its folder listing returns them (Memdir: its own listing's order), and
 * leaves out a file with a second hard link.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type BuiltIndex, buildIndexLikeClaudeCode } from '../../shared/index-build.js';
import { INDEX_FILE } from '../../shared/limits.js';
import type { MemorySummary } from '../../shared/scan-types.js';

type BuildSource = Pick<MemorySummary, 'file' | 'mtimeMs' | 'description'>;

/**
 * What Claude Code would write as MEMORY.md for these memories of a main memory folder, or null
 * when it writes nothing: an entry named MEMORY.md is there (an empty or unreadable file too), or
 * nothing is linkable. Links are left out, as Claude Code follows none when it builds.
 */
export function builtIndexOf(memoryDir: string, memories: readonly BuildSource[]): BuiltIndex | null {
  if (fs.lstatSync(path.join(memoryDir, INDEX_FILE), { throwIfNoEntry: false }) !== undefined) return null;
  return builtIndexFrom(memories.filter((m) => fs.lstatSync(path.join(memoryDir, m.file), { throwIfNoEntry: false })?.isFile() === true));
}

/**
 * The same from memories already known to be regular files of a folder with no MEMORY.md (the
 * scan's listing says both: no second lstat of each on the scan's path).
 */
export function builtIndexFrom(regular: readonly BuildSource[]): BuiltIndex | null {
  // Array.prototype.sort is stable: files of one mtime keep the listing's order.
  const newestFirst = [...regular].sort((a, b) => b.mtimeMs - a.mtimeMs);
  const built = buildIndexLikeClaudeCode(newestFirst.map((m) => ({ file: m.file.split(path.sep).join('/'), description: m.description || null })));
  return built.text === '' ? null : built;
}
