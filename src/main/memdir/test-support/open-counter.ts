/**
 * Counts the times files of a folder are opened, as the kernel sees it (Linux inotify IN_OPEN,
 * through a small python3 helper: Node's fs.watch reports changes, never reads). For tests that
 * assert how often a file is read — a cache that works, a prediction made once — on the real
 * file system, no mock of fs. Linux only.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const WATCHER = `
import ctypes, os, struct, sys
libc = ctypes.CDLL('libc.so.6', use_errno=True)
fd = libc.inotify_init()
dirs = {}
for d in sys.argv[1:]:
    dirs[libc.inotify_add_watch(fd, d.encode(), 0x20)] = d
sys.stdout.write('ready\\n'); sys.stdout.flush()
while True:
    buf = os.read(fd, 65536)
    i = 0
    while i < len(buf):
        wd, mask, cookie, ln = struct.unpack_from('iIII', buf, i)
        name = buf[i + 16:i + 16 + ln].rstrip(b'\\0').decode('utf-8', 'replace')
        i += 16 + ln
        if name: sys.stdout.write(os.path.join(dirs[wd], name) + '\\n')
    sys.stdout.flush()
`;

export interface OpenCounter {
  /** Opens of each file (absolute path) since the last `take`, once every open made before this call is counted. */
  take(): Promise<Map<string, number>>;
  close(): void;
}

/** Start counting the opens of the files directly inside `dir`. */
export async function countOpens(dir: string): Promise<OpenCounter> {
  // A folder of its own for the marker: opening it after the work flushes the work's events (one queue, in order).
  const markerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-opens-'));
  const marker = path.join(markerDir, 'marker');
  fs.writeFileSync(marker, '');
  const child: ChildProcessWithoutNullStreams = spawn('python3', ['-c', WATCHER, dir, markerDir]);
  let counts = new Map<string, number>();
  let waiting: (() => void) | null = null;
  let rest = '';
  let ready!: () => void;
  const started = new Promise<void>((resolve, reject) => {
    ready = resolve;
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the inotify helper (python3) stopped with code ${code}`)));
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready') ready();
      else if (line === marker) waiting?.();
      else counts.set(line, (counts.get(line) ?? 0) + 1);
    }
  });
  await started;
  return {
    async take() {
      await new Promise<void>((resolve) => {
        waiting = resolve;
        fs.readFileSync(marker);
      });
      waiting = null;
      const taken = counts;
      counts = new Map();
      return taken;
    },
    close() {
      child.kill();
      fs.rmSync(markerDir, { recursive: true, force: true });
    },
  };
}
