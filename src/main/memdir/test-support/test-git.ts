/** The real git for tests: isolated from the machine's global and system configuration, with a fixed author and branch name. */
import { execFileSync } from 'node:child_process';
import { isolatedGitEnv } from '../run-git.js';

const gitEnv = { ...isolatedGitEnv(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/** Run git in `cwd`; its output, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    env: gitEnv,
    stdio: 'pipe',
    encoding: 'utf8',
  }).trim();
}
