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

const PREMISE = ": the test's premise (tmpfs counts whole pages, so the room left is exactly what was asked) does not hold on this kernel";

/**
 * A test on a small disk counts on the room it left: the write it expects to fit must fit and the
 * next one must be refused. Whether tmpfs's page accounting gives that is this kernel's business,
 * so it is checked here: exactly `left` bytes free, a write of `left` bytes taken, one byte more refused.
 */
function checkRoomLeft(dir: string, left: number): void {
  const free = () => {
    const st = fs.statfsSync(dir);
    return st.bavail * st.bsize;
  };
  if (free() !== left) throw new Error(`the small disk at ${dir} has ${free()} bytes free after filling, not the ${left} asked for${PREMISE}`);
  const fits = path.join(dir, '.probe-fits');
  const over = path.join(dir, '.probe-over');
  try {
    try {
      fs.writeFileSync(fits, Buffer.alloc(left));
    } catch (err) {
      throw new Error(`the small disk at ${dir} refused a write of the ${left} bytes it says are free (${(err as Error).message})${PREMISE}`, { cause: err });
    }
    let refused = false;
    try {
      fs.writeFileSync(over, 'x');
    } catch (err) {
      refused = (err as NodeJS.ErrnoException).code === 'ENOSPC';
    }
    if (!refused) throw new Error(`the small disk at ${dir} took a byte beyond the ${left} bytes left${PREMISE}`);
  } finally {
    fs.rmSync(fits, { force: true });
    fs.rmSync(over, { force: true });
  }
  if (free() !== left) throw new Error(`the small disk at ${dir} has ${free()} bytes free after its probe was removed, not ${left}${PREMISE}`);
}

/** A tmpfs of `bytes` mounted at `dir` (created), with ways to fill it, free it and make it read-only. */
export interface SmallDisk {
  dir: string;
  /**
   * Fills the disk until only `bytes` are left (tmpfs counts whole 4 KiB pages), and checks it:
   * throws, saying why, where this kernel's tmpfs does not leave exactly that room.
   */
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
      if (left % st.bsize !== 0) throw new Error(`leaveFree(${left}): this disk counts whole ${st.bsize}-byte pages; ask for a multiple of ${st.bsize}`);
      try {
        fs.writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - left)));
      } catch (err) {
        throw new Error(`the small disk at ${dir} refused to be filled to ${left} bytes free (${(err as Error).message})${PREMISE}`, { cause: err });
      }
      checkRoomLeft(dir, left);
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
