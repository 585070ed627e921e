/**
 * A project's timeline, drawn from its history (issue 14, item 9): after each recorded change,
 * how many memories there were and how large MEMORY.md was as Claude Code counts it (lines,
 * UTF-16 characters, whether it was cut), with each dream and sync marked. Counts are walked back
 * from the directory as it is now, so only entries that touched MEMORY.md are read again.
 */
import { loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { type HistoryEntry, listHistory, readAtRevision } from '../history/index.js';

/** One point of the timeline: the state right after a history entry. */
export interface TimelinePoint {
  rev: string;
  time: string;
  source: string;
  summary: string;
  /** Topic files of the private memory (team files apart). */
  memories: number;
  teamMemories: number;
  /** MEMORY.md as Claude Code counts it; null before there was one. */
  indexLines: number | null;
  indexChars: number | null;
  indexCut: boolean;
}

const isTopic = (p: string) => /\.md$/i.test(p) && !/(^|\/)MEMORY\.md$/i.test(p);
const isTeam = (p: string) => p.startsWith(`${TEAM_DIR}/`);

/** Change in the number of (private, team) topic files made by one entry. */
function delta(entry: HistoryEntry): { own: number; team: number } {
  const d = { own: 0, team: 0 };
  const bump = (p: string, by: number) => {
    if (!isTopic(p)) return;
    if (isTeam(p)) d.team += by;
    else d.own += by;
  };
  for (const f of entry.files) {
    if (f.status === 'added') bump(f.path, 1);
    else if (f.status === 'deleted') bump(f.path, -1);
    else if (f.status === 'renamed' && f.from) {
      bump(f.from, -1);
      bump(f.path, 1);
    }
  }
  return d;
}

/** The last `limit` entries of a memory directory's history as a timeline, oldest first. */
export async function projectTimeline(
  memoryDir: string,
  now: { memories: number; teamMemories: number },
  options: { dataDir?: string; limit?: number } = {},
): Promise<TimelinePoint[]> {
  const entries = await listHistory(memoryDir, { ...(options.dataDir ? { dataDir: options.dataDir } : {}), limit: options.limit ?? 300 });
  const points: TimelinePoint[] = [];
  let own = now.memories;
  let team = now.teamMemories;
  for (const entry of entries) {
    points.push({
      rev: entry.rev,
      time: entry.time,
      source: entry.source,
      summary: entry.summary,
      memories: own,
      teamMemories: team,
      indexLines: null,
      indexChars: null,
      indexCut: false,
    });
    const d = delta(entry);
    own -= d.own;
    team -= d.team;
  }
  points.reverse();
  // MEMORY.md is read again only where an entry changed it; between, it stayed as it was.
  let index: { lines: number | null; chars: number | null; cut: boolean } | null = null;
  for (const [i, point] of points.entries()) {
    const touched = entries[entries.length - 1 - i]!.files.some((f) => f.path === INDEX_FILE || f.from === INDEX_FILE);
    if (index === null || touched) {
      const text = await readAtRevision(memoryDir, point.rev, INDEX_FILE, options.dataDir ? { dataDir: options.dataDir } : {});
      const load = text === null ? null : loadIndexAsClaudeCode(text);
      index = { lines: load?.lines ?? null, chars: load?.chars ?? null, cut: load?.truncated ?? false };
    }
    point.indexLines = index.lines;
    point.indexChars = index.chars;
    point.indexCut = index.cut;
  }
  return points;
}
