/**
 * A small disk of its own for a test (a tmpfs mount), so a write can meet a full disk (ENOSPC) or a
 * read-only one (EROFS) for real. Mounting needs root on Linux: where it is not allowed,
 * `smallDiskUnavailable` says why in one line and the test skips.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function tryMount(dir: string, bytes: number): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err)
      .split('\n')[0]!
      .trim();
  }
}

/** Null where a tmpfs can be mounted here; else the one-line reason it cannot. */
export const smallDiskUnavailable: string | null = (() => {
  if (process.platform !== 'linux') return 'mounting a small disk needs Linux';
  if (process.getuid?.() !== 0) return 'mounting a small disk needs root';
  const probe = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'memdir-mount-probe-'));
  const why = tryMount(probe, 64 * 1024);
  if (why === null) execFileSync('umount', [probe]);
  fs.rmdirSync(probe);
  return why === null ? null : `cannot mount a tmpfs here (${why})`;
})();

/** A tmpfs of `bytes` mounted at `dir` (created), with ways to fill it, free it and make it read-only. */
export interface SmallDisk {
  dir: string;
  /** Fills the disk until only `bytes` are left (tmpfs counts whole 4 KiB pages). */
  leaveFree(bytes: number): void;
  /** Frees what leaveFree took. */
  free(): void;
  readOnly(on: boolean): void;
  unmount(): void;
}

export function mountSmallDisk(dir: string, bytes: number): SmallDisk {
  fs.mkdirSync(dir, { recursive: true });
  const why = tryMount(dir, bytes);
  if (why !== null) throw new Error(`cannot mount a tmpfs at ${dir}: ${why}`);
  const filler = path.join(dir, '.filler');
  return {
    dir,
    leaveFree(left) {
      fs.rmSync(filler, { force: true });
      const st = fs.statfsSync(dir);
      fs.writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - left)));
    },
    free() {
      fs.rmSync(filler, { force: true });
    },
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir]);
    },
    unmount() {
      execFileSync('umount', ['-l', dir]);
    },
  };
}
