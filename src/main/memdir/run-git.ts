/**
 * Running the system `git` safely, for the few checks only git can answer (is a path ignored,
 * is it tracked). Finding a project never runs git (R-KEY: canonical-key.ts reads files only).
 */
import { execFile } from 'node:child_process';

/**
 * A copy of `env` without any `GIT_*` variable, so a `GIT_DIR`, `GIT_WORK_TREE`,
 * `GIT_INDEX_FILE`, `GIT_CEILING_DIRECTORIES` or `GIT_CONFIG_*` inherited from the user's
 * shell (or from a git hook that launched us) cannot point our look-ups at another repository.
 * Discovery may cross file-system boundaries, as Claude Code's own walk-up does.
 */
export function isolatedGitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.toUpperCase().startsWith('GIT_')) clean[name] = value;
  }
  clean.GIT_DISCOVERY_ACROSS_FILESYSTEM = '1';
  clean.GIT_TERMINAL_PROMPT = '0';
  return clean;
}

/** What one `git` run returned; `code` is null when git could not be started at all. */
export interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the system `git` without a shell, in `cwd`, with an isolated environment and a timeout.
 * Never throws: a missing git binary gives `code: null`.
 */
export function runGit(args: string[], cwd: string, timeoutMs = 10_000): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env: isolatedGitEnv(), timeout: timeoutMs, maxBuffer: 1024 * 1024, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) {
        resolve({ code: 0, stdout, stderr });
        return;
      }
      const raw = (error as { code?: unknown }).code;
      resolve({ code: typeof raw === 'number' ? raw : null, stdout: stdout ?? '', stderr: stderr ?? '' });
    });
  });
}
