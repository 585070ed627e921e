/**
 * `identity`: the walk from HEAD to the root commit of a 30,000-commit repository (issue 18,
 * project identity), read from its files — through git's commit-graph, and through the packed
 * objects alone (a fresh clone has no graph) — each against the fastest plain way to do the
 * same I/O: reading the commit-graph file, and reading the pack and its index, with readFileSync.
 */
import { execFileSync } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findRootCommits } from '../../src/main/memdir/git-repo-files.js';
import { isolatedGitEnv } from '../../src/main/memdir/run-git.js';
import { type Scenario, compare } from '../lib.js';

const COMMITS = 30_000;
/** Reads of the commit-graph file, and walks through it, in each timed round. */
const GRAPH_REPEATS = 20;
const env = { ...isolatedGitEnv(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/** A linear history of COMMITS commits touching 50 files, written by git fast-import, then packed. */
function buildRepo(dir: string): string {
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
  const lines: string[] = [];
  for (let i = 1; i <= COMMITS; i++) {
    const msg = `commit ${i}: a message of a realistic length, saying what changed and why\n`;
    const content = `line ${i}\n`;
    lines.push(
      `commit refs/heads/main\nmark :${i}\ncommitter t <t@t> ${1_600_000_000 + i} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}${i > 1 ? `from :${i - 1}\n` : ''}M 644 inline f${i % 50}.txt\ndata ${content.length}\n${content}\n`,
    );
  }
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'fast-import', '--quiet'], { cwd: dir, env, input: lines.join('') });
  execFileSync('git', ['-c', 'gc.writeCommitGraph=false', 'gc', '-q'], { cwd: dir, env });
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env, encoding: 'utf8' }).trim();
}

export const identityScenario: Scenario = {
  name: 'identity',
  description: `root commit of a ${COMMITS.toLocaleString('en')}-commit repository, from its files`,
  async run(log) {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-identity-'));
    try {
      const repo = path.join(root, 'repo');
      const head = buildRepo(repo);
      const gitDir = path.join(repo, '.git');
      const dirs = { gitDir, commonDir: gitDir };
      const expected = execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: repo, env, encoding: 'utf8' }).trim();
      log(`built ${COMMITS} commits under ${root}`);
      const packDir = path.join(gitDir, 'objects', 'pack');
      const packFiles = fsSync.readdirSync(packDir).map((n) => path.join(packDir, n));
      const walk = () => {
        const found = findRootCommits(dirs, head, 20, 100_000);
        if (found.roots.join() !== expected) throw new Error(`walk found ${found.roots.join() || found.problem}, git says ${expected}`);
      };
      const objects = await compare(
        5,
        async () => packFiles.forEach((f) => fsSync.readFileSync(f)),
        async () => walk(),
      );
      execFileSync('git', ['commit-graph', 'write', '--reachable'], { cwd: repo, env });
      const graphFile = path.join(gitDir, 'objects', 'info', 'commit-graph');
      // The graph file is read in a few tenths of a millisecond, as long as one cache miss or a
      // collection's aftermath: one read and one walk a round made the ratio swing 17–31 between
      // runs. Each round reads the file, and walks, GRAPH_REPEATS times (the same I/O, repeated).
      const graph = await compare(
        15,
        async () => {
          for (let i = 0; i < GRAPH_REPEATS; i++) fsSync.readFileSync(graphFile);
        },
        async () => {
          for (let i = 0; i < GRAPH_REPEATS; i++) walk();
        },
      );
      return {
        ratios: {
          'walk through the commit-graph / readFileSync of the graph': {
            value: graph.ratio,
            target: 20,
            better: 'lower',
            note: 'the file is read in well under a millisecond: the walk is a few milliseconds',
          },
          'walk through packed objects / readFileSync of the pack and index': {
            value: objects.ratio,
            target: 400,
            better: 'lower',
            note: 'every commit is a pack look-up and an inflate; the walk runs once per HEAD, then is remembered',
          },
        },
        figures: {
          commits: COMMITS,
          'graph walk ms': graph.subjectMs / GRAPH_REPEATS,
          'read graph file ms': graph.baselineMs / GRAPH_REPEATS,
          'object walk ms': objects.subjectMs,
          'read pack + idx ms': objects.baselineMs,
        },
      };
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  },
};
