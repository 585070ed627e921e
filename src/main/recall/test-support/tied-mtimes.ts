/**
 * A memory folder whose topic files all share one mtime, as tar, `cp -p`, rsync or a sync that
 * writes many files within one clock tick leave it (review x5 F4). Claude Code 2.1.332 sorts its
 * recall candidates newest first and keeps ties in the order the OS lists each folder (depth
 * first), not in name order; recorded live by claude-code-interop.test.ts
 * (`MEMDIR_RECORD_RECALL_ORDER_FIXTURE=1`) in test/fixtures/claude-code/recall-order-2.1.332.json.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export const RECALL_ORDER_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code/recall-order-2.1.332.json');

export interface RecallOrderFixture {
  claudeCode: string;
  how: string;
  /** Candidates in the folder (all one mtime) and how many the selector was offered. */
  candidates: number;
  offered: number;
  /** The offered files (links aside) are in the folders' own listing order (`ls -U`), depth first. */
  offeredInFolderListingOrder: boolean;
  /** The offered files are in name order. */
  offeredInNameOrder: boolean;
}

const WORDS = ['zeta', 'alpha', 'Mango', 'kiwi', 'banana', 'cherry', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

/** `count` topic files in `folder/`, named out of name order. */
export function tiedFiles(count: number, folder = 'r'): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`${folder}/${WORDS[i % WORDS.length]}_${(i * 7919) % 1000}.md`] = `---\nname: n${i}\ndescription: restored memory ${i}\ntype: project\n---\n`;
  }
  return files;
}

/** Give every file below `dir` but MEMORY.md the same mtime. */
export async function stampAll(dir: string, when = new Date('2026-11-30T10:00:00Z')): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) await stampAll(abs, when);
    else if (entry.isFile() && entry.name !== 'MEMORY.md') await fs.utimes(abs, when, when);
  }
}

/**
 * Every plain file below `dir` (relative paths), depth first, each folder in the order the OS
 * lists it as `ls -U` (unsorted) prints it; links are not followed.
 */
export function folderListing(dir: string, relative = ''): string[] {
  const names = execFileSync('ls', ['-1UAp', path.join(dir, relative)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  return names.flatMap((name) => {
    if (name.endsWith('/')) return folderListing(dir, path.join(relative, name.slice(0, -1)));
    const child = path.join(relative, name);
    return lstatSync(path.join(dir, child)).isFile() ? [child] : [];
  });
}

/** Whether `offered` lists the files it shares with `listing` in the listing's order. */
export function inListingOrder(offered: readonly string[], listing: readonly string[]): boolean {
  const inListing = new Set(listing);
  const offeredSet = new Set(offered);
  const a = offered.filter((f) => inListing.has(f));
  const b = listing.filter((f) => offeredSet.has(f));
  return a.length > 0 && a.length === b.length && a.every((f, i) => f === b[i]);
}
