/**
 * `bulk`: a bulk change over a big project — one memory folder of 3,000 realistic memories
 * (bench/corpus.ts) with its MEMORY.md — through the app's one front door (curation bulkChange):
 * change the type of 1,000 memories, then delete 1,000 others. Each is timed against the fastest
 * plain way to do the same I/O in the same run, on a copy of the same project (same seed, same bytes):
 *   - type change: for each memory the app changed, `writeFileSync` of the same new bytes to a temp
 *     file + `fsyncSync` + `renameSync` over it; MEMORY.md the same way; one folder fsync;
 *   - delete: `unlinkSync` of the same files; MEMORY.md as the app left it, written the same way; one folder fsync.
 * The floor is plain file I/O only, never a tool: ONE git commit of the same change (`git add -A` +
 * `git commit`, with the settings of the app's history repo: core.fsync=committed,
 * core.fsyncMethod=batch) is timed after it and printed beside — the history every writer must
 * leave (STYLE.md), which the app pays inside its own time and the floor does not.
 * What the app does beyond the floor: its history commit, its lock, the snapshot of outside changes before the change
 * (git status), reading and checking each memory (frontmatter, secret scan), confinement checks
 * (no links on the way), and the three-way check of MEMORY.md against what Claude Code may have
 * appended meanwhile.
 * Target: ≤ 2.5× the floor for each. Per memory the floor pays one file fsync (a few ms on a real
 * disk) and the app the same one; the rest is CPU of ~1–2 ms per memory (parse, serialize, secret
 * scan), the history repo's own bookkeeping and a git status: at most as much again as the plain
 * I/O, and a half for a loaded machine. Measured in one round each (a round is seconds, on a
 * 3,000-file folder that a second round would have to rebuild); the absolute figures stand beside.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bulkChange } from '../../src/main/curation/bulk-change.js';
import { writeHome } from '../corpus.js';
import { type Scenario, settle } from '../lib.js';

const MEMORIES = 3_000;
const CHANGED = 1_000;
const TARGET = 2.5;

/** The same settings the history repo commits with (src/main/history/git.ts), hooks off. */
const GIT = [
  '-c',
  'user.name=bench',
  '-c',
  'user.email=bench@localhost',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'core.fsync=committed',
  '-c',
  'core.fsyncMethod=batch',
  '-c',
  'core.autocrlf=false',
  '-c',
  'gc.auto=0',
];

function git(dir: string, ...args: string[]): void {
  execFileSync('git', [...GIT, ...args], { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
}

/** One commit of everything changed in `dir`, as the history repo makes one. */
function commit(dir: string, message: string): void {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}

function writeSynced(file: string, data: string | Buffer): void {
  const temp = path.join(path.dirname(file), `.bench-tmp-${path.basename(file)}`);
  const fd = fs.openSync(temp, 'w');
  fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(temp, file);
}

function syncFolder(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

function wall(fn: () => unknown): Promise<number> {
  settle();
  const start = performance.now();
  return Promise.resolve(fn()).then(() => performance.now() - start);
}

export const bulkScenario: Scenario = {
  name: 'bulk',
  description: `type change of ${CHANGED.toLocaleString('en')} and delete of ${CHANGED.toLocaleString('en')} memories in a project of ${MEMORIES.toLocaleString('en')} ÷ the same writes/unlinks, plain`,
  async run(log) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-bench-bulk-'));
    try {
      const app = writeHome(path.join(root, 'app'), { projects: 1, memoriesPerProject: MEMORIES, seed: 42 });
      writeHome(path.join(root, 'floor'), { projects: 1, memoriesPerProject: MEMORIES, seed: 42 });
      const memoryDir = app.memoryDirs[0]!;
      const floorDir = memoryDir.replace(path.join(root, 'app'), path.join(root, 'floor'));
      const dataDir = path.join(root, 'data');
      const opts = { memoryDir, dataDir };
      const files = fs.readdirSync(memoryDir).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md');
      log(
        `built ${files.length} memories (${(app.bytes / 1e6).toFixed(1)} MB) in one folder; MEMORY.md ${fs.statSync(path.join(memoryDir, 'MEMORY.md')).size} bytes`,
      );

      // Untimed: the history repo's first snapshot of the project (what the first change of any project pays once), and the floor's first commit.
      const warm = files.find((f) => f.startsWith('project_'))!;
      await bulkChange(opts, [{ scope: 'private', file: warm }], { kind: 'set-type', type: 'feedback' });
      writeSynced(path.join(floorDir, warm), fs.readFileSync(path.join(memoryDir, warm)));
      git(floorDir, 'init', '-q');
      commit(floorDir, 'first');

      // Type change: memories with frontmatter of another type (a third are `reference` already, and are skipped).
      const retyped = files.filter((f) => f !== warm && !f.startsWith('reference_') && /^(user|feedback|project)_/.test(f)).slice(0, CHANGED);
      const delCandidates = files.filter((f) => f !== warm && !retyped.includes(f));
      const deleted = delCandidates.slice(0, CHANGED);
      if (retyped.length < CHANGED || deleted.length < CHANGED) throw new Error(`only ${retyped.length} to retype and ${deleted.length} to delete`);

      let setType: Awaited<ReturnType<typeof bulkChange>> | undefined;
      const setTypeMs = await wall(async () => {
        setType = await bulkChange(
          opts,
          retyped.map((file) => ({ scope: 'private' as const, file })),
          { kind: 'set-type', type: 'reference' },
        );
      });
      if (setType!.refused.length > 10) throw new Error(`the type change left ${setType!.refused.length} memories: ${setType!.refused[0]!.reason}`);
      const written = setType!.done.map((d) => ({ file: d.file, bytes: fs.readFileSync(path.join(memoryDir, d.file)) }));
      const indexAfterType = fs.readFileSync(path.join(memoryDir, 'MEMORY.md'));
      const setTypeFloorMs = await wall(() => {
        for (const w of written) writeSynced(path.join(floorDir, w.file), w.bytes);
        writeSynced(path.join(floorDir, 'MEMORY.md'), indexAfterType);
        syncFolder(floorDir);
      });
      const setTypeGitMs = await wall(() => commit(floorDir, 'type'));

      let del: Awaited<ReturnType<typeof bulkChange>> | undefined;
      const deleteMs = await wall(async () => {
        del = await bulkChange(
          opts,
          deleted.map((file) => ({ scope: 'private' as const, file })),
          { kind: 'delete' },
        );
      });
      if (del!.refused.length > 0) throw new Error(`the delete left ${del!.refused.length} memories: ${del!.refused[0]!.reason}`);
      const indexAfterDelete = fs.readFileSync(path.join(memoryDir, 'MEMORY.md'));
      const deleteFloorMs = await wall(() => {
        for (const f of deleted) fs.unlinkSync(path.join(floorDir, f));
        writeSynced(path.join(floorDir, 'MEMORY.md'), indexAfterDelete);
        syncFolder(floorDir);
      });
      const deleteGitMs = await wall(() => commit(floorDir, 'delete'));

      log(
        `type change: ${setType!.done.length} changed, ${setType!.refused.length} left; ${setTypeMs.toFixed(0)} ms vs floor ${setTypeFloorMs.toFixed(0)} ms (+ ${setTypeGitMs.toFixed(0)} ms for one git commit of it)`,
      );
      log(
        `delete: ${del!.done.length} deleted; ${deleteMs.toFixed(0)} ms vs floor ${deleteFloorMs.toFixed(0)} ms (+ ${deleteGitMs.toFixed(0)} ms for one git commit of it)`,
      );
      log('floor: the same files written (temp + fsync + rename) or unlinked, MEMORY.md likewise, one folder fsync; the git commit beside, not in it');
      const note = 'one round; floor = the same writes/unlinks + one folder fsync (a git commit of the change is a figure beside)';
      return {
        ratios: {
          'type change ÷ floor': { value: setTypeMs / setTypeFloorMs, target: TARGET, better: 'lower', note },
          'delete ÷ floor': { value: deleteMs / deleteFloorMs, target: TARGET, better: 'lower', note },
        },
        figures: {
          memories: files.length,
          typeChanged: setType!.done.length,
          typeChangeMs: setTypeMs,
          typeChangeFloorMs: setTypeFloorMs,
          typeChangeGitCommitMs: setTypeGitMs,
          typeChangeMsPerMemory: setTypeMs / setType!.done.length,
          deleted: del!.done.length,
          deleteMs,
          deleteFloorMs,
          deleteGitCommitMs: deleteGitMs,
          deleteMsPerMemory: deleteMs / del!.done.length,
        },
      };
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
