/**
 * The file system calls the dream gates and the consolidation lock make, as one injectable
 * object. Production passes the real fs; tests pass a counting wrapper around the same real fs,
 * which is how "a closed time gate costs exactly one `stat`" (R-DREAM-GATE) is asserted rather
 * than hoped for.
 */
import fsCallbacks, { type Stats } from 'node:fs';
import fs from 'node:fs/promises';

/** The subset of `node:fs/promises` the dream gates and lock use. */
export interface DreamFs {
  stat(p: string): Promise<Stats>;
  /** The same stat, synchronous: for loops of thousands (the session gate), where a promise per file costs more than the stat. */
  statSync(p: string): Stats;
  readdir(p: string): Promise<string[]>;
  readFile(p: string, encoding: 'utf8'): Promise<string>;
  open(p: string, flags: string, mode?: number): Promise<fs.FileHandle>;
  rename(from: string, to: string): Promise<void>;
  utimes(p: string, atime: number, mtime: number): Promise<void>;
  unlink(p: string): Promise<void>;
  mkdir(p: string, options: { recursive: true }): Promise<string | undefined>;
  realpath(p: string): Promise<string>;
}

/**
 * The real file system. `stat` and `readdir` are the synchronous calls behind a promise: a
 * stat is a few microseconds, a thread-pool round trip many times that, and the gates are all
 * stats (bench `dream-gates`). The session gate, one stat per transcript over thousands, calls
 * `statSync` in a plain loop: it runs at most once per 10 minutes per project.
 */
export const nodeDreamFs: DreamFs = {
  stat: async (p) => fsCallbacks.statSync(p),
  statSync: (p) => fsCallbacks.statSync(p),
  readdir: async (p) => fsCallbacks.readdirSync(p),
  readFile: (p, encoding) => fs.readFile(p, encoding),
  open: (p, flags, mode) => fs.open(p, flags, mode),
  rename: (from, to) => fs.rename(from, to),
  utimes: (p, atime, mtime) => fs.utimes(p, atime, mtime),
  unlink: (p) => fs.unlink(p),
  mkdir: (p, options) => fs.mkdir(p, options),
  realpath: (p) => fs.realpath(p),
};
