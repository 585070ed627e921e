import fs from 'node:fs';
import path from 'node:path';
import { type CommandSpec, UsageError, homeOption, jsonOption, printJson } from '../command.js';
import { formatProblem } from '../format.js';
import { homeFrom } from './scan.js';
import { locateProject, missingMemory, parseTopicFile, readMemoryFile, readOnlyStoreFolders, readOnlyStoreNote, scanProject } from '../../main/memdir/index.js';
import { MemoryFileError, resolveDataDir } from '../../main/core/index.js';
import { agentIndexView } from '../../main/transcripts/index.js';
import { cutFactsText } from '../../shared/index-cut.js';
import { INDEX_FILE } from '../../shared/limits.js';
import { autoMemoryOffSentence, unappliedSettingsLines } from '../../shared/settings-text.js';
import { plural } from '../../shared/size-text.js';

export const showCommand: CommandSpec = {
  name: ['show'],
  summary: "Show a project's index (what reaches the agent and what is cut) or one memory file.",
  args: ['<project>', '[file]'],
  options: {
    home: homeOption,
    json: jsonOption,
    loaded: { type: 'boolean', description: 'print MEMORY.md exactly as Claude Code will load it at the next session start' },
  },
  details: `<project> is a path inside the project or its directory name under projects/.
[file] is relative to the memory directory (team files as team/name.md), read as the app opens it:
a symlink staying inside the memory directory is read, one leading outside it (or a path through a
linked folder) is refused; MEMORY.md up to 20 MB, a memory up to 1 MB.
JSON without [file]: the project's scan (see \`memdir scan --help\`).
Without --json: each pointer above the cut (loaded) and below it (CUT); one naming a file that does
not exist (Health's dangling-link) is marked "missing" — above the cut it is never called loaded, and
the count of pointers reaching the agent says how many name missing files; the count of those cut
says how many memories the agent never sees and how many pointers below the cut name missing files
(index.loadedMissing, index.cutMemories, index.cutMissing).
JSON with [file]: {"file", "text", "name", "description", "type", "body", "problems": [...], "readOnlyStore"}:
readOnlyStore is null, or, for a file in a read-only Claude Code memory store (its mode from
CLAUDE_MEMORY_STORES, in the environment or a settings env block), the sentence saying an edit
stays on this machine and is replaced when the store's copy changes.
--loaded: the index text the agent gets (frontmatter and block comments stripped, trimmed, cut at
200 lines / 25,000 UTF-16 code units, Claude Code's warning paragraph appended when cut, control
characters removed), then a newline; nothing when Claude Code would load no index — with auto memory
off it loads none, and a sentence on stderr names the setting and the file or variable it came from.
A settings file Claude Code does not apply (not valid JSON, or dropped whole because one value fails
its schema: an old-format PreToolUse hook, "permissions.allow" as text, a non-boolean
autoMemoryEnabled…) is named on stderr with why; its settings are not in force (\`where\` lists it
under "ignored").
While CLAUDE_MEMORY_STORES is set (the environment or a settings env block) Claude Code syncs the
memory with its stores and loads no index either, synced yet or not: the sentence on stderr says
where it is set and names the store folders. Left .memory-sync files without the setting count for nothing.
--loaded --json: {"text", "truncated", "reason", "claudeCodeVersion", "hasTranscript", "lastInjected", "autoMemoryOff", "storesLoadNoIndex", "builtByClaudeCode", "builtFile"}: reason in
Claude Code's words or null; claudeCodeVersion from the project's transcripts (it words the warning; read
as \`dream status\` reads it) or null; hasTranscript false when no session has run yet; lastInjected = the
index text the newest transcript recorded as injected, or null; autoMemoryOff = that sentence when
auto memory is off (text is then empty), else null; storesLoadNoIndex = the store sentence, else null;
builtByClaudeCode = with memories but no MEMORY.md, the sentence saying Claude Code writes one at its next session
start (text is then what it will write and load), else null; builtFile = then the file it will write, byte
for byte, else null — null too with auto memory off or in memory-store mode, where Claude Code writes none.`,
  async run({ positionals, values, io }) {
    const home = homeFrom(values, io);
    const loc = await locateProject(home, positionals[0]!, io.env);
    const file = positionals[1];
    if (values.loaded) {
      if (file) throw new UsageError('--loaded shows the index; it takes no [file]');
      const view = await agentIndexView(loc);
      if (values.json) printJson(io, view);
      else if (view.text) io.out(`${view.text}\n`);
      // Nothing on stdout (Claude Code loads nothing); the reason for the person reading.
      else if (view.autoMemoryOff ?? view.storesLoadNoIndex) io.err(`${view.autoMemoryOff ?? view.storesLoadNoIndex}\n`);
      // Settings files Claude Code does not apply: what they say (memory off, a folder) is not in force.
      if (!values.json) for (const line of unappliedSettingsLines(loc.settings)) io.err(`${line}\n`);
      return 0;
    }
    if (!file) {
      const scan = await scanProject(home, loc.dir, { env: io.env });
      if (values.json) {
        printJson(io, scan);
        return 0;
      }
      // A home not made yet reads as empty: say so first, as scan and lint do (a newcomer before Claude Code's first session, a mistyped --home).
      if (!fs.existsSync(home)) io.out(`No Claude Code home at ${home} yet: Claude Code makes it at its first session.\n`);
      io.out(`${scan.path ?? scan.dir}\nmemory dir: ${scan.memoryDir}\n\n`);
      const off = autoMemoryOffSentence(scan.settings);
      if (off) io.out(`${off}\n`);
      // The scan's (its sessions' launch directory) and, for a path, that directory's own.
      for (const line of new Set([...unappliedSettingsLines(scan.settings), ...unappliedSettingsLines(loc.settings)])) io.out(`${line}\n`);
      if (!scan.index.exists && scan.index.loaded.length > 0) {
        // Claude Code writes one at its next session start (index-build.ts; the `index-built` hint below says so).
        io.out(`No ${INDEX_FILE} yet: Claude Code writes one at its next session start; ${scan.index.loaded.length} pointers will reach the agent.\n`);
        for (const f of scan.index.loaded) io.out(`  loaded  ${f}\n`);
      } else if (!scan.index.exists) io.out(`No ${INDEX_FILE}: the agent starts with no memory index.\n`);
      else {
        const facts = cutFactsText(scan.index);
        // A pointer to a file that does not exist is never "loaded", above the cut or below: the scan's
        // loadedMissing and cutMissing (Health's dangling links, the one rule), as the JSON gives them.
        const missing = new Set([...scan.index.loadedMissing, ...scan.index.cutMissing]);
        const loadedMissing = scan.index.loadedMissing.length;
        io.out(
          `${INDEX_FILE}: ${plural(scan.index.lines, 'line')}, ${plural(scan.index.chars, 'character')}; ${plural(scan.index.loaded.length, 'pointer')} ${scan.index.loaded.length === 1 ? 'reaches' : 'reach'} the agent${loadedMissing ? ` (${loadedMissing} ${loadedMissing === 1 ? 'names a missing file' : 'name missing files'})` : ''}, ${scan.index.cut.length} ${scan.index.cut.length === 1 ? 'is' : 'are'} cut${facts ? ` (${facts})` : ''}.\n`,
        );
        if (scan.index.reason) io.out(`Claude Code cuts it: ${INDEX_FILE} is ${scan.index.reason}. \`memdir show --loaded\` prints what the agent gets.\n`);
        for (const f of scan.index.loaded)
          io.out(missing.has(f) ? `  missing ${f}  (no such file: the agent is given a pointer to nothing)\n` : `  loaded  ${f}\n`);
        for (const f of scan.index.cut) io.out(`  CUT     ${f}${missing.has(f) ? '  (missing: no such file)' : ''}\n`);
      }
      if (scan.memories.length === 0)
        io.out('\nNo memories yet: Claude Code saves them in the memory dir above when a session has something worth remembering.\n');
      else io.out(`\n${plural(scan.memories.length, 'memory', 'memories')}:\n`);
      for (const m of scan.memories) io.out(`  ${(m.type ?? '?').padEnd(10)} ${m.file}  ${m.description}\n`);
      if (scan.team) {
        const teamFacts = cutFactsText(scan.team.index);
        // Past MEMORY.md's cut: Claude Code 2.1.332 does not load team/MEMORY.md (index-state.ts).
        io.out(`\nteam: ${plural(scan.team.memories.length, 'memory', 'memories')}${teamFacts ? `; ${teamFacts}` : ''}\n`);
      }
      for (const p of [...scan.problems, ...(scan.team?.problems ?? [])]) io.out(`${formatProblem(p)}\n`);
      return 0;
    }
    const { text } = await readMemoryFile(loc.memoryDir, file).catch(async (error: unknown) => {
      if (!(error instanceof MemoryFileError && error.code === 'not-found')) throw error;
      throw await missingMemory(loc.memoryDir, file, loc.keySource === 'dir-name' ? loc.dir : loc.key, resolveDataDir(io.env));
    });
    if (values.json) {
      const topic = path.basename(file) === INDEX_FILE ? null : parseTopicFile(text, file);
      printJson(io, {
        file,
        text,
        ...(topic ? { name: topic.meta.name, description: topic.meta.description, type: topic.meta.type, body: topic.body, problems: topic.issues } : {}),
        readOnlyStore: readOnlyStoreNote(readOnlyStoreFolders(loc.memoryDir, loc.settings.memoryStores), file),
      });
    } else io.out(text.endsWith('\n') ? text : `${text}\n`);
    return 0;
  },
};
