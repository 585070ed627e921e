/**
 * R-DREAM-GATE, the last gate of Claude Code 2.1.332 before it fires: a search of the launch
 * folder's transcripts for sessions run under an organization's own sign-in. Read from its bundle
 * and observed (test/fixtures/claude-code-dream/): it searches every file named `*.jsonl*` under
 * the folder, sub-agents' included (`rg --hidden --no-ignore --fixed-strings`), for lines holding
 * `"type":"hybrid-organization"`, and takes their `organizationUuid` where it is a UUID. With none
 * it fires; with one it fires only in a session signed in to that organization's own sign-in (and
 * no other), else it skips and puts the lock's time back; with two or more it skips. Memdir cannot
 * see how a session signs in, so it names the organization and says so.
 *
 * Each file is read once per change (its size and mtime), so a status shown again costs a stat per transcript.
 */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** What the search finds in one launch folder: no mark, one organization, or several. */
export type OrganizationMark = null | { organization: string } | 'mixed';

const MARK = Buffer.from('"type":"hybrid-organization"');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The glob `*.jsonl*` the client searches with. */
const SEARCHED = /\.jsonl/;

const byFile = new Map<string, { size: number; mtimeMs: number; organizations: string[] }>();

/** The organizations the marked lines of one file name (lower case). */
function organizationsIn(text: Buffer): string[] {
  const found: string[] = [];
  for (let at = text.indexOf(MARK); at >= 0; at = text.indexOf(MARK, at + MARK.length)) {
    const start = text.lastIndexOf(10, at) + 1;
    const end = text.indexOf(10, at);
    try {
      const line = JSON.parse(text.subarray(start, end < 0 ? text.length : end).toString('utf8')) as Record<string, unknown>;
      if (line.type === 'hybrid-organization' && typeof line.organizationUuid === 'string' && UUID.test(line.organizationUuid))
        found.push(line.organizationUuid.toLowerCase());
    } catch {
      // A line that is not JSON names no organization.
    }
  }
  return found;
}

async function filesUnder(dir: string, out: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return; // Missing or unreadable: nothing the client could search either.
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) await filesUnder(full, out);
    else if (e.isFile() && SEARCHED.test(e.name)) out.push(full);
  }
}

/** What 2.1.332's organization search finds in the launch folder `folder`. Never throws. */
export async function organizationMarkIn(folder: string): Promise<OrganizationMark> {
  const files: string[] = [];
  await filesUnder(folder, files);
  const organizations = new Set<string>();
  for (const file of files) {
    try {
      const stat = await fs.stat(file);
      let known = byFile.get(file);
      if (!known || known.size !== stat.size || known.mtimeMs !== stat.mtimeMs) {
        known = { size: stat.size, mtimeMs: stat.mtimeMs, organizations: organizationsIn(await fs.readFile(file)) };
        byFile.set(file, known);
      }
      for (const o of known.organizations) organizations.add(o);
    } catch {
      // Gone since the listing.
    }
  }
  if (organizations.size === 0) return null;
  return organizations.size === 1 ? { organization: [...organizations][0]! } : 'mixed';
}
