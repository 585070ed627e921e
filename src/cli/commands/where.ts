import path from 'node:path';
import { type CommandSpec, homeOption, jsonOption, printJson } from '../command.js';
import { locateProject } from '../../main/memdir/index.js';
import { homeFrom } from './scan.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { autoMemoryDirectoryTrustSentence } from '../../shared/settings-text.js';

export const whereCommand: CommandSpec = {
  name: ['where'],
  summary: 'Show where Claude Code keeps the memory of the project containing a directory, and why.',
  args: ['<dir>'],
  options: { home: homeOption, json: jsonOption },
  details: `<dir> is taken as the directory Claude Code is launched in. The key is found the way Claude Code finds
it, from files only (git is never run): the first .git at or above <dir>; a .git file is followed to the
main repository only when it is a valid linked worktree (its commondir and back-link agree).
The memory moves where autoMemoryDirectory says: managed, then local, then the project's shared
.claude/settings.json, then your own settings (as Claude Code 2.1.332 reads them). The repository's
files count in \`claude -p\` and, in a session, once the folder is trusted (no session starts
there before): autoMemoryDirectoryTrust says whether .claude.json records that
trust for the launch directory, a folder above it or its repository; null when the directory
comes from elsewhere.
JSON: {"key": "<canonical root>", "dir": "<sanitised name>", "memoryDir": "<abs path>", "exists": bool,
       "via": "no-git"|"repository"|"worktree"|"bare-worktree"|"own-root",
       "gitEntry": {"path", "kind": "directory"|"file"} or null,
       "worktree": {"gitdir", "commondir", "valid", "problem"} or null, "explanation": "<sentences>",
       "launchDir": "<dir, resolved>", "transcriptFolder": "<sanitised launch dir>",
       "autoMemoryEnabled": bool, "autoMemoryEnabledSource": "default"|"env"|"managed"|"user"|"local"|"project",
       "autoMemoryEnabledFrom": "<file or variable>" or null,
       "autoMemoryDirectorySource": "default"|"env"|"managed"|"user"|"local"|"project", "autoMemoryDirectoryFrom",
       "autoMemoryDirectoryTrust": {"trusted", "config", "folder"} or null,
       "settingsFiles": [{"source", "file", "exists"}], "ignored": [{"file", "key", "reason"}]} ("key" is "" when the whole file is not loaded)`,
  async run({ positionals, values, io }) {
    const home = homeFrom(values, io);
    const loc = await locateProject(home, path.resolve(io.cwd, positionals[0]!), io.env);
    const e = loc.explanation!;
    const launchDir = loc.settings.launchDir ?? e.dir;
    const result = {
      key: loc.key,
      dir: loc.dir,
      memoryDir: loc.memoryDir,
      exists: loc.existing,
      via: e.via,
      gitEntry: e.gitEntry,
      worktree: e.worktree,
      explanation: e.detail,
      launchDir,
      transcriptFolder: sanitizeDirName(launchDir),
      autoMemoryEnabled: loc.settings.autoMemoryEnabled,
      autoMemoryEnabledSource: loc.settings.autoMemoryEnabledSource,
      autoMemoryEnabledFrom: loc.settings.autoMemoryEnabledFrom,
      autoMemoryDirectorySource: loc.settings.autoMemoryDirectorySource,
      autoMemoryDirectoryFrom: loc.settings.autoMemoryDirectoryFrom,
      autoMemoryDirectoryTrust: loc.settings.autoMemoryDirectoryTrust,
      settingsFiles: loc.settings.files,
      ignored: loc.settings.ignored,
    };
    if (values.json) printJson(io, result);
    else {
      io.out(`project key  ${result.key}\n`);
      io.out(`             ${result.explanation}\n`);
      io.out(`directory    ${result.dir}\n`);
      io.out(`memory       ${result.memoryDir}${result.exists ? '' : '  (no memory yet)'}\n`);
      if (result.autoMemoryDirectoryFrom) io.out(`             moved by ${result.autoMemoryDirectoryFrom}\n`);
      const trust = autoMemoryDirectoryTrustSentence(loc.settings);
      if (trust) io.out(`             ${trust}\n`);
      io.out(`transcripts  ${path.join(home, 'projects', result.transcriptFolder)}  (sessions launched in ${launchDir})\n`);
      io.out(`auto memory  ${result.autoMemoryEnabled ? 'on' : 'off'} (${result.autoMemoryEnabledFrom ?? result.autoMemoryEnabledSource})\n`);
      // A whole file Claude Code does not load has no key: the file is what is ignored.
      for (const i of result.ignored) io.out(`ignored      ${i.key ? `${i.key} in ` : ''}${i.file}: ${i.reason}\n`);
    }
    return 0;
  },
};
