import { describe, expect, it } from 'vitest';
import { isolatedGitEnv } from './run-git.js';

describe('isolatedGitEnv', () => {
  it('drops every GIT_* variable and keeps the rest', () => {
    const env = isolatedGitEnv({ PATH: '/bin', GIT_DIR: '/x', GIT_INDEX_FILE: '/i', git_work_tree: '/w', HOME: '/h' });
    expect(env.PATH).toBe('/bin');
    expect(env.HOME).toBe('/h');
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_INDEX_FILE).toBeUndefined();
    expect(env.git_work_tree).toBeUndefined();
  });
});
