import fs from 'node:fs';
import path from 'node:path';
import { type CommandSpec, CliFailure, homeOption, jsonOption, printJson } from '../command.js';
import { ago, plural, table } from '../format.js';
import { resolveDataDir } from '../../main/core/index.js';
import { openScanCache, resolveHome, scanHome } from '../../main/memdir/index.js';
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../shared/limits.js';

/**
 * The Claude Code home a command reads: `--home`, else $CLAUDE_CONFIG_DIR, else ~/.claude. The one
 * check of it for every command: a file there is no empty home (nothing would be found in it, and
 * "none" would be no true answer), so it is refused in a sentence (exit 2). A missing home is fine:
 * Claude Code makes it at its first session.
 */
export function homeFrom(values: Record<string, unknown>, io: { cwd: string; env: NodeJS.ProcessEnv }): string {
  const home = typeof values.home === 'string' ? path.resolve(io.cwd, values.home) : resolveHome(io.env);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(home, { throwIfNoEntry: false });
  } catch {
    stat = undefined; // not reachable (a part of its path is a file, no permission): the command says what it meets
  }
  if (stat && !stat.isDirectory())
    throw new CliFailure(`${home} is a file, not a folder: give Claude Code's home folder (--home, $CLAUDE_CONFIG_DIR, else ~/.claude).`);
  return home;
}

export const scanCommand: CommandSpec = {
  name: ['scan'],
  summary: 'List every project with memories in the Claude Code home, with index load and health.',
  args: [],
  options: { home: homeOption, json: jsonOption },
  details: `JSON: {"home", "exists", "projects": [{"dir", "path" (real path or null), "memoryDir", "exists" (false: no memory/ yet),
  "index": {"exists", "lines", "bytes", "chars", "loaded": [file…], "cut": [file…], "loadedLines", "loadedBytes",
            "loadedChars", "firstCutLine", "reason", "cutMemories": [file…], "cutMissing": [file…], "loadedMissing": [file…]},
  (lines and chars as Claude Code counts them — after stripping frontmatter and block comments;
   chars are UTF-16 code units, what its 25,000 limit counts; bytes are UTF-8, for reference;
   "loaded" and "cut" list the pointers above and below the cut, one per pointer line, files that do
   not exist included; "cutMemories" are the memories the agent never sees because every link to
   them is below a cut (each once; for a team memory, its team/x.md links in MEMORY.md), "cutMissing"
   the pointers of "cut" that name files that do not exist and "loadedMissing" those of "loaded" (they
   reach the agent but point at nothing; \`memdir show\` marks both "missing") — the table's CUT column
   counts cutMemories, private and team)
  "memories": [{"file" (relative: "retros/x.md" for a subfolder), "name", "description", "type", "scope", "bytes", "mtimeMs", "layout"}],
  "team": {same index/memories/problems} or null (Claude Code 2.1.332 does not load team/MEMORY.md: its "index"
   gives the file's "exists", "lines", "bytes" and "chars" and says nothing of it loads — "loaded", "cut",
   "cutMissing" and "loadedMissing" empty, "loadedLines", "loadedBytes" and "loadedChars" 0, "firstCutLine" and "reason" null;
   "cutMemories" are the team memories past MEMORY.md's cut, and a team memory only team/MEMORY.md lists is an orphan),
  "problems": [{"code", "file", "line", "message", "severity", "fix", "target"? (the file an index line names)}], "lastChangeMs", "transcripts",
  "launchDirs": [{"cwd", "folder", "transcripts", "autoMemoryEnabled", "autoMemoryEnabledSource", "autoMemoryEnabledFrom"}],
  "readInstead" (folder name or null), "settings": {"autoMemoryEnabled", "autoMemoryEnabledSource", "autoMemoryEnabledFrom", …, "permissionRules", "memoryStores": {"value", "from"} or null},
  "identity": {"source": "repository"|"remembered"|"paths", "remotes": [normalised URL…], "rootCommits": [oid…],
               "paths": [last known path…], "gitDir", "readAt", "note"}}]}
One project per memory folder: transcript folders of sessions launched in a subdirectory or a linked
worktree are listed under the project whose memory they read ("launchDirs"), never as projects.
"identity" is what survives a move: the repository's remotes and root commits, read from its files (no git,
no network) and remembered in Memdir's data dir, so a project whose folder moved away is still known.
A missing home is not an error: it scans as empty. What each file held is kept in Memdir's data dir
(scan-cache/), so the next scan reads only what changed.`,
  async run({ values, io }) {
    const home = homeFrom(values, io);
    const dataDir = resolveDataDir(io.env);
    const { cache, save } = openScanCache(dataDir, home);
    const scan = await scanHome(home, { env: io.env, cache, dataDir });
    if (scan.exists) await save();
    if (values.json) {
      printJson(io, scan);
      return 0;
    }
    if (!scan.exists) {
      io.out(`No Claude Code home at ${home} yet: nothing to scan. Claude Code makes it at its first session (--home or $CLAUDE_CONFIG_DIR names another).\n`);
      return 0;
    }
    if (scan.projects.length === 0) {
      io.out(`No projects in ${home} yet: Claude Code adds one under projects/ at its first session in a folder.\n`);
      return 0;
    }
    const rows = [['PROJECT', 'MEMORIES', 'TEAM', 'INDEX', 'CUT', 'PROBLEMS', 'CHANGED']];
    for (const p of scan.projects) {
      const problems = p.problems.filter((x) => x.severity !== 'hint').length + (p.team?.problems.filter((x) => x.severity !== 'hint').length ?? 0);
      rows.push([
        p.path ?? p.dir,
        String(p.memories.length),
        p.team ? String(p.team.memories.length) : '—',
        p.index.exists ? `${p.index.lines}/${INDEX_MAX_LINES} lines, ${p.index.chars}/${INDEX_MAX_CHARS} chars` : 'no MEMORY.md',
        String(p.index.cutMemories.length + (p.team?.index.cutMemories.length ?? 0)),
        String(problems),
        ago(p.lastChangeMs),
      ]);
    }
    io.out(table(rows));
    io.out(`\n${plural(scan.projects.length, 'project')} in ${home}. \`memdir lint\` explains the problems.\n`);
    if (scan.projects.some((p) => p.index.cut.length + (p.team?.index.cutMemories.length ?? 0) > 0))
      io.out(
        'CUT: memories the agent never sees (private and team), every pointer to them past the MEMORY.md cut; `memdir show <project>` lists each pointer below it.\n',
      );
    return 0;
  },
};
