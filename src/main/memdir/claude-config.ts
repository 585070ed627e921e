/**
 * Claude Code's global config file (`.claude.json`): where it is for a home, and what Memdir
 * reads of it — the folders whose trust dialog was accepted (`projects[<folder>].hasTrustDialogAccepted`).
 * Claude Code 2.1.332 lets a repository's settings (local and the shared project settings) move
 * the memory directory only in `claude -p` or in a folder trusted this way (R-SETTINGS); an
 * interactive session does not start in a folder before its trust dialog is accepted, and
 * accepting it writes that record for the launch directory (checked with the real client).
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * Where Claude Code keeps its global config for a home: `.config.json` in the home when present,
 * else `.claude.json` — beside the default `~/.claude`, or inside a home set by CLAUDE_CONFIG_DIR.
 */
export function claudeConfigFiles(home: string, env: NodeJS.ProcessEnv): string[] {
  const beside = path.basename(home) === '.claude' && !env.CLAUDE_CONFIG_DIR?.trim();
  return [path.join(home, '.config.json'), beside ? path.join(path.dirname(home), '.claude.json') : path.join(home, '.claude.json')];
}

/** Whether Claude Code trusts a launch directory, the config file that says so and the folder it names (null: none). */
export interface FolderTrust {
  trusted: boolean;
  /** The config file read, or null when there is none. */
  config: string | null;
  /** The trusted folder: the launch directory, a folder above it or the repository's root. */
  folder: string | null;
}

/**
 * The folders whose accepted trust covers a launch directory, as Claude Code 2.1.332 walks them:
 * the directory and each folder above it, up to the repository's root (the first folder with a
 * `.git`), or up to the file system's root outside a repository; and the project's key.
 */
function trustCandidates(launchDir: string, canonicalRoot: string): string[] {
  const out: string[] = [];
  let dir = launchDir;
  for (;;) {
    out.push(dir);
    if (fs.existsSync(path.join(dir, '.git'))) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (!out.includes(canonicalRoot)) out.push(canonicalRoot);
  return out;
}

/** Read whether Claude Code trusts a launch directory (the first config file that parses decides). Never throws. */
export function readFolderTrust(home: string, env: NodeJS.ProcessEnv, launch: { launchDir: string; canonicalRoot: string }): FolderTrust {
  for (const file of claudeConfigFiles(home, env)) {
    let config: unknown;
    try {
      config = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    const projects = (config as { projects?: unknown } | null)?.projects;
    const record = projects && typeof projects === 'object' ? (projects as Record<string, { hasTrustDialogAccepted?: unknown } | undefined>) : {};
    const folder =
      trustCandidates(launch.launchDir, launch.canonicalRoot).find((d) => record[d.replaceAll('\\', '/')]?.hasTrustDialogAccepted === true) ?? null;
    return { trusted: folder !== null, config: file, folder };
  }
  return { trusted: false, config: null, folder: null };
}
