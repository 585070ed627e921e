import { type CommandSpec, homeOption, jsonOption, printJson, wholeNumberOption } from '../command.js';
import { table } from '../format.js';
import { homeFrom } from './scan.js';
import { locateProject } from '../../main/memdir/projects.js';
import { listHistory, recordSnapshot, restoreFromHistory } from '../../main/history/history.js';
import { resolveDataDir } from '../../main/data-dir.js';

export const historyCommand: CommandSpec = {
  name: ['history'],
  summary: 'List the recorded changes of a project\'s memory, newest first (outside changes are recorded first).',
  args: ['<project>'],
  options: {
    home: homeOption,
    file: { type: 'string', valueName: 'F', description: 'only changes touching this file (relative to the memory dir)' },
    limit: { type: 'string', valueName: 'N', description: 'at most N entries (default 50)' },
    json: jsonOption,
  },
  details: `Every change made through Memdir is recorded with its source (manual, external, extract, dream,
restore, fix, sync, …) in a shadow git repository in Memdir's data directory — never in your repo.
JSON: {"memoryDir", "entries": [{"rev", "time", "source", "summary", "files": [{"path", "status", "from"?}]}]}`,
  async run({ positionals, values, io }) {
    const home = homeFrom(values, io);
    const loc = await locateProject(home, positionals[0]!, io.env);
    const limit = wholeNumberOption(values, 'limit', { min: 1, max: 100_000 }, 50)!;
    // Catch up with changes made outside Memdir before showing the timeline.
    const dataDir = resolveDataDir(io.env);
    if (loc.existing) await recordSnapshot(loc.memoryDir, { source: 'external', summary: 'Changes made outside Memdir', dataDir });
    const entries = await listHistory(loc.memoryDir, { limit, dataDir, ...(typeof values.file === 'string' ? { file: values.file } : {}) });
    if (values.json) {
      printJson(io, { memoryDir: loc.memoryDir, entries });
      return 0;
    }
    if (entries.length === 0) {
      io.out(`No history yet for ${loc.memoryDir}.\n`);
      return 0;
    }
    io.out(table([['REV', 'WHEN', 'SOURCE', 'CHANGE'], ...entries.map((e) => [e.rev.slice(0, 10), e.time.replace('T', ' ').slice(0, 19), e.source, e.summary])]));
    return 0;
  },
};

export const restoreCommand: CommandSpec = {
  name: ['restore'],
  summary: 'Restore one memory file, or the whole memory directory, as it was at a revision from `memdir history`.',
  args: ['<project>', '<rev>', '[file]'],
  options: { home: homeOption, json: jsonOption },
  details: `The restore is itself recorded in history (source "restore"), so it can be undone the same way.
JSON: {"restored": {"rev", "time", "source", "summary", "files": [...]} or null when nothing changed}`,
  async run({ positionals, values, io }) {
    const home = homeFrom(values, io);
    const loc = await locateProject(home, positionals[0]!, io.env);
    const [, rev, file] = positionals as [string, string, string | undefined];
    const entry = await restoreFromHistory(loc.memoryDir, rev, { dataDir: resolveDataDir(io.env), ...(file ? { file } : {}) });
    if (values.json) printJson(io, { restored: entry });
    else io.out(entry ? `Restored ${file ?? 'the memory directory'} to ${rev} (${entry.files.length} file(s) changed).\n` : 'Nothing to restore: it is already that way.\n');
    return 0;
  },
};
