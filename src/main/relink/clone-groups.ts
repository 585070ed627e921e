/**
 * Clones and moved copies (issue 18, item 4): memory directories of projects that exist and
 * share an identity — a remote or a root commit — are one project in several places. They are
 * grouped for the dashboard with an offer to merge them or keep them apart; "keep apart" is
 * remembered (`<dataDir>/identity/kept-apart.json`) and the group is not offered again unless
 * another copy joins it.
 */
import path from 'node:path';
import type { CloneGroup } from '../../shared/contract/identity.js';
import { compareIdentities } from '../../shared/project-identity.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { changeDataFile, readDataFileNow } from '../memdir/index.js';
import { isOrphan } from './orphans.js';

function keptFile(dataDir: string): string {
  return path.join(dataDir, 'identity', 'kept-apart.json');
}

/** The entries of kept-apart.json as found (one this version cannot read is still kept), or null when the file is damaged. */
function parseKept(text: string): unknown[] | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const kept = (raw as { kept?: unknown }).kept ?? [];
  return Array.isArray(kept) ? kept : null;
}

function isDirSet(k: unknown): k is string[] {
  return Array.isArray(k) && k.every((d) => typeof d === 'string');
}

/** The sets of projects the user chose to keep apart (none when the file is missing, damaged or unreadable: the groups are offered). */
export async function readKeptApart(dataDir: string): Promise<string[][]> {
  const read = await readDataFileNow(keptFile(dataDir), parseKept).catch(() => null);
  return read && read.contents !== 'damaged' ? read.contents.filter(isDirSet) : [];
}

/**
 * Remember that `dirs` are kept apart (a choice covering an earlier one replaces it). The choice
 * is added to the file as it is now, under the data dir's lock (changeDataFile): another
 * window's or a terminal's choice made meanwhile stays.
 */
export async function keepApart(dataDir: string, dirs: readonly string[]): Promise<string[][]> {
  const set = [...new Set(dirs)].sort();
  const written = await changeDataFile(
    keptFile(dataDir),
    (current: unknown[] | null) => ({ version: 1, kept: [...(current ?? []).filter((k) => !(isDirSet(k) && k.every((d) => set.includes(d)))), set] }),
    { dataDir, parse: parseKept },
  );
  return written.kept.filter(isDirSet);
}

/** Projects (existing, with memories) grouped by shared remote or root commit, minus the groups kept apart. */
export function cloneGroups(projects: readonly ProjectScan[], kept: readonly string[][]): CloneGroup[] {
  const live = projects.filter((p) => p.identity.source === 'repository' && p.memories.length + (p.team?.memories.length ?? 0) > 0 && !isOrphan(p));
  const parent = live.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const evidence = compareIdentities(live[i]!.identity, live[j]!.identity);
      if (evidence.includes('same-remote') || evidence.includes('same-root-commit')) parent[find(i)] = find(j);
    }
  }
  const byRoot = new Map<number, ProjectScan[]>();
  live.forEach((p, i) => byRoot.set(find(i), [...(byRoot.get(find(i)) ?? []), p]));
  const groups: CloneGroup[] = [];
  for (const members of byRoot.values()) {
    if (members.length < 2) continue;
    const dirs = members.map((m) => m.dir).sort();
    if (kept.some((k) => dirs.every((d) => k.includes(d)))) continue;
    const evidence = compareIdentities(members[0]!.identity, members[1]!.identity).filter((e) => e !== 'same-name');
    groups.push({
      key: dirs.join('\n'),
      evidence,
      projects: members
        .map((m) => ({
          dir: m.dir,
          path: m.path ?? m.identity.paths[0] ?? null,
          memories: m.memories.length + (m.team?.memories.length ?? 0),
          lastChangeMs: m.lastChangeMs,
        }))
        .sort((a, b) => (b.lastChangeMs ?? 0) - (a.lastChangeMs ?? 0)),
    });
  }
  return groups;
}
