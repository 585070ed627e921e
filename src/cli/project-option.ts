/**
 * `--project PATH|DIR`, read one way by every command that takes it: a directory name under
 * `projects/` when one exists by that name, else a path from the caller's directory (the CLI's
 * cwd may differ from the process's in tests), `~/…` as given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type CliIo, type OptionSpec, UsageError } from './command.js';
import { homeFrom } from './commands/scan.js';
import { locateProject, ProjectNotFoundError, type ProjectLocation, projectsRoot } from '../main/memdir/index.js';

/** `--project` of a command that works on one project. */
export const projectOption: OptionSpec = {
  type: 'string',
  valueName: 'PATH|DIR',
  description: 'project directory, or its directory name under projects/',
  required: true,
};

/** `--project` of a command that also works without one (`memdir personal status`: the machine's state). */
export const optionalProjectOption: OptionSpec = { type: 'string', valueName: 'PATH|DIR', description: projectOption.description };

/** What `locateProject` is given for `--project target`. */
export function projectTarget(target: string, home: string, cwd: string): string {
  if (!/[/\\]/.test(target) && !target.startsWith('.') && !target.startsWith('~') && fs.existsSync(path.join(projectsRoot(home), target))) return target;
  return target.startsWith('~') ? target : path.resolve(cwd, target);
}

/** The project `--project` names, in the home `--home` names; a UsageError when it is missing or empty. */
export async function locateProjectOption(values: Record<string, unknown>, io: CliIo): Promise<ProjectLocation> {
  if (typeof values.project !== 'string' || values.project.trim() === '')
    throw new UsageError('--project is required: a project directory or its name under projects/');
  const home = homeFrom(values, io);
  const typed = values.project;
  const target = projectTarget(typed, home, io.cwd);
  return locateProject(home, target, io.env).catch((error: unknown) => {
    // A name (`-nope`) is also looked for as a folder here; neither is there: say so of what was typed.
    if (error instanceof ProjectNotFoundError && target !== typed && !/^[.~]|[/\\]/.test(typed) && !fs.existsSync(target))
      throw new ProjectNotFoundError(typed, home);
    throw error;
  });
}
