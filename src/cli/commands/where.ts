import path from 'node:path';
import { type CommandSpec, homeOption, jsonOption, printJson } from '../command.js';
import { resolveHome } from '../../main/memdir/home.js';
import { locateProject } from '../../main/memdir/projects.js';

export const whereCommand: CommandSpec = {
  name: ['where'],
  summary: 'Show where Claude Code keeps the memory of the project containing a directory.',
  args: ['<dir>'],
  options: { home: homeOption, json: jsonOption },
  details: `JSON: {"key": "<canonical root>", "dir": "<sanitised name>", "memoryDir": "<abs path>",
       "exists": bool, "autoMemoryEnabled": bool, "autoMemoryEnabledSource": "default"|"env"|"user"|"local"|"project",
       "autoMemoryDirectorySource": "default"|"user"|"local"}`,
  async run({ positionals, values, io }) {
    const home = typeof values.home === 'string' ? path.resolve(io.cwd, values.home) : resolveHome(io.env);
    const loc = await locateProject(home, path.resolve(io.cwd, positionals[0]!), io.env);
    const result = {
      key: loc.key,
      dir: loc.dir,
      memoryDir: loc.memoryDir,
      exists: loc.existing,
      autoMemoryEnabled: loc.settings.autoMemoryEnabled,
      autoMemoryEnabledSource: loc.settings.autoMemoryEnabledSource,
      autoMemoryDirectorySource: loc.settings.autoMemoryDirectorySource,
    };
    if (values.json) printJson(io, result);
    else {
      io.out(`project key  ${result.key}\n`);
      io.out(`directory    ${result.dir}\n`);
      io.out(`memory       ${result.memoryDir}${result.exists ? '' : '  (no memory yet)'}\n`);
      io.out(`auto memory  ${result.autoMemoryEnabled ? 'on' : 'off'} (${result.autoMemoryEnabledSource})\n`);
    }
    return 0;
  },
};
