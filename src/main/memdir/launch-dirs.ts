/**
 * The directories a project's sessions start in (R-LAYOUT), the main one first. Claude Code keeps
 * project and local agent memory (R-AGENT) in the directory a session starts in, so the Agents view,
 * export/import and relink/merge all ask here which directories hold it.
 */
import path from 'node:path';

/** What a project scan knows of its launch directories. */
export interface LaunchDirsOf {
  /** The canonical key (repository root), or null when unknown. */
  path: string | null;
  /** The settings of the main launch directory: `launchDir` is that directory, null when no session names one. */
  settings: { launchDir: string | null };
  /** The transcript folders' launch directories, most sessions first. */
  launchDirs: readonly { cwd: string | null }[];
}

/**
 * The project's main launch directory (the one whose settings speak for the project, else the
 * root) and its other launch directories, each once.
 */
export function projectLaunchDirs(project: LaunchDirsOf): { main: string | null; others: string[] } {
  const main = project.settings.launchDir ?? project.path;
  const seen = new Set(main ? [path.resolve(main)] : []);
  const others: string[] = [];
  for (const l of project.launchDirs) {
    if (!l.cwd || !path.isAbsolute(l.cwd) || seen.has(path.resolve(l.cwd))) continue;
    seen.add(path.resolve(l.cwd));
    others.push(l.cwd);
  }
  return { main, others };
}
