import path from 'node:path';
import { type CommandSpec, CliFailure, homeOption, jsonOption, printJson } from '../command.js';
import { formatProblem } from '../format.js';
import { homeFrom } from './scan.js';
import { locateProject } from '../../main/memdir/projects.js';
import { scanProject } from '../../main/memdir/scan-home.js';
import { readMemoryText } from '../../main/memdir/read-file.js';
import { resolveInside } from '../../main/memdir/safe-fs.js';
import { parseTopicFile } from '../../main/memdir/topic-file.js';
import { INDEX_FILE } from '../../shared/limits.js';

export const showCommand: CommandSpec = {
  name: ['show'],
  summary: 'Show a project\'s index (what reaches the agent and what is cut) or one memory file.',
  args: ['<project>', '[file]'],
  options: { home: homeOption, json: jsonOption },
  details: `<project> is a path inside the project or its directory name under projects/.
[file] is relative to the memory directory (team files as team/name.md).
JSON without [file]: the project's scan (see \`memdir scan --help\`).
JSON with [file]: {"file", "text", "name", "description", "type", "body", "problems": [...]}`,
  async run({ positionals, values, io }) {
    const home = homeFrom(values, io);
    const loc = await locateProject(home, positionals[0]!, io.env);
    const file = positionals[1];
    if (!file) {
      const scan = await scanProject(home, loc.dir, { env: io.env });
      if (values.json) {
        printJson(io, scan);
        return 0;
      }
      io.out(`${scan.path ?? scan.dir}\nmemory dir: ${scan.memoryDir}\n\n`);
      if (!scan.index.exists) io.out(`No ${INDEX_FILE}: the agent starts with no memory index.\n`);
      else {
        io.out(`${INDEX_FILE}: ${scan.index.lines} lines, ${scan.index.bytes} bytes; ${scan.index.loaded.length} pointers reach the agent, ${scan.index.cut.length} are cut.\n`);
        for (const f of scan.index.loaded) io.out(`  loaded  ${f}\n`);
        for (const f of scan.index.cut) io.out(`  CUT     ${f}\n`);
      }
      io.out(`\n${scan.memories.length} memories:\n`);
      for (const m of scan.memories) io.out(`  ${(m.type ?? '?').padEnd(10)} ${m.file}  ${m.description}\n`);
      if (scan.team) io.out(`\nteam: ${scan.team.memories.length} memories\n`);
      for (const p of [...scan.problems, ...(scan.team?.problems ?? [])]) io.out(`${formatProblem(p)}\n`);
      return 0;
    }
    let abs: string;
    try {
      abs = await resolveInside(loc.memoryDir, file);
    } catch (error) {
      throw new CliFailure((error as Error).message);
    }
    const outcome = await readMemoryText(loc.memoryDir, abs, false);
    if (!outcome.ok) throw new CliFailure(`${file} cannot be shown: ${outcome.reason}.`);
    if (values.json) {
      const topic = path.basename(file) === INDEX_FILE ? null : parseTopicFile(outcome.text, file);
      printJson(io, {
        file,
        text: outcome.text,
        ...(topic ? { name: topic.meta.name, description: topic.meta.description, type: topic.meta.type, body: topic.body, problems: topic.issues } : {}),
      });
    } else io.out(outcome.text.endsWith('\n') ? outcome.text : `${outcome.text}\n`);
    return 0;
  },
};
