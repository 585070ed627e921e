/**
 * `dream-gates`: the dream gates are checked often (at start, after every session, periodically),
 * so they must cost about what their file system calls cost.
 *   (a) A closed time gate (fresh lock) against a bare `fs.statSync` of the same file
 *       (target ≤ 3): the gate is one stat plus a report.
 *   (b) The session gate over 10,000 transcripts in one project, un-throttled, against a bare
 *       `readdirSync` + `statSync` loop doing the same calls (target ≤ 1.3).
 * The floors are the plain synchronous calls; the promise-based loops are kept as figures.
 */
import { randomUUID } from 'node:crypto';
import fsCallbacks from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CONSOLIDATION_LOCK_FILE } from '../../src/main/dream/consolidation-lock.js';
import { type DreamTarget, passDreamGates } from '../../src/main/dream/gates/dream-gates.js';
import { SessionScanCache } from '../../src/main/dream/gates/session-scan.js';
import { type Scenario, compare } from '../lib.js';

/** The floor of the session gate: list the folder, stat every transcript, count the newer ones. */
function syncSessionLoop(dir: string, since: number): number {
  let count = 0;
  for (const name of fsCallbacks.readdirSync(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    if (fsCallbacks.statSync(path.join(dir, name)).mtimeMs > since) count++;
  }
  return count;
}

const TRANSCRIPTS = 10_000;
/** Calls per timed sample of the time gate: one stat is tens of microseconds. */
const TIME_GATE_BATCH = 500;
const HOUR = 60 * 60 * 1000;
const callbackStat = promisify(fsCallbacks.stat);

async function buildProject(root: string): Promise<{ target: DreamTarget; lockFile: string; since: number }> {
  const projectDir = path.join(root, 'projects', '-work-big-project');
  const memoryDir = path.join(projectDir, 'memory');
  await fs.mkdir(memoryDir, { recursive: true });
  const now = Date.now();
  // Transcripts touched over the last 100 hours; the last dream was 48 h ago, so about half count.
  for (let i = 0; i < TRANSCRIPTS; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, async (_, j) => {
        const file = path.join(projectDir, `${randomUUID()}.jsonl`);
        await fs.writeFile(file, '{"type":"user","message":{"content":"hi"}}\n');
        const t = (now - (((i + j) * 7919) % 100) * HOUR - j * 1000) / 1000;
        await fs.utimes(file, t, t);
      }),
    );
  }
  await fs.mkdir(path.join(projectDir, 'some-session', 'subagents'), { recursive: true });
  const lockFile = path.join(memoryDir, CONSOLIDATION_LOCK_FILE);
  return { target: { projectDir, memoryDir }, lockFile, since: now - 48 * HOUR };
}

async function setLockTime(lockFile: string, ms: number): Promise<void> {
  await fs.writeFile(lockFile, '');
  await fs.utimes(lockFile, ms / 1000, ms / 1000);
}

/** The bare loop: readdir, then stat every transcript, 32 at a time, counting the newer ones. */
async function bareSessionLoop(dir: string, since: number, stat: (p: string) => Promise<fsCallbacks.Stats>, width = 32): Promise<number> {
  const names = (await fs.readdir(dir)).filter((n) => n.endsWith('.jsonl'));
  let next = 0;
  let count = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < names.length) {
        const s = await stat(path.join(dir, names[next++]!));
        if (s.mtimeMs > since) count++;
      }
    }),
  );
  return count;
}

export const dreamGatesScenario: Scenario = {
  name: 'dream-gates',
  description: `closed time gate vs one stat; session gate over ${TRANSCRIPTS.toLocaleString('en')} transcripts vs a bare readdir + stat loop`,
  async run(log) {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-dream-'));
    try {
      const { target, lockFile, since } = await buildProject(root);
      const dataDir = path.join(root, 'data');
      log(`built ${TRANSCRIPTS} transcripts under ${root}`);

      // (a) Closed time gate: the lock was written an hour ago.
      await setLockTime(lockFile, Date.now() - HOUR);
      const closed = await passDreamGates(target, { dataDir });
      if (closed.report.gates[0]?.passed !== false || closed.report.gates[1]?.checked !== false) throw new Error('the time gate should be closed');
      const timeGate = await compare(
        31,
        () => {
          for (let i = 0; i < TIME_GATE_BATCH; i++) fsCallbacks.statSync(lockFile);
        },
        async () => {
          for (let i = 0; i < TIME_GATE_BATCH; i++) await passDreamGates(target, { dataDir });
        },
      );
      const callbackStatRound = await compare(
        11,
        async () => {
          for (let i = 0; i < TIME_GATE_BATCH; i++) await callbackStat(lockFile);
        },
        async () => {
          for (let i = 0; i < TIME_GATE_BATCH; i++) await callbackStat(lockFile);
        },
      );

      // (b) Session gate: time open (last dream 48 h ago), the count un-throttled; the session
      // threshold is out of reach so the lock gate is never reached and nothing is written.
      await setLockTime(lockFile, since);
      const gateOpts = { dataDir, minSessions: TRANSCRIPTS + 1, sessionScanIntervalMs: 0 };
      const expected = await bareSessionLoop(target.projectDir, since, callbackStat);
      const check = await passDreamGates(target, gateOpts);
      const counted = check.report.gates[1];
      if (counted?.value !== expected || check.lock) throw new Error(`session gate counted ${String(counted?.value)}, the bare loop ${expected}`);
      if (syncSessionLoop(target.projectDir, since) !== expected) throw new Error('the floor loop counted otherwise');
      const sessionGate = await compare(
        21,
        () => syncSessionLoop(target.projectDir, since),
        () => passDreamGates(target, gateOpts),
      );
      // For the record: the same loop on fs.promises, 32 wide and one at a time.
      const promisesLoop = await compare(
        5,
        () => bareSessionLoop(target.projectDir, since, (p) => fs.stat(p)),
        () => bareSessionLoop(target.projectDir, since, (p) => fs.stat(p), 1),
      );
      // And the throttled check the scheduler makes within 10 minutes of a count.
      const cache = new SessionScanCache();
      await passDreamGates(target, { dataDir, minSessions: TRANSCRIPTS + 1, sessionCache: cache });
      const throttled = await compare(
        15,
        () => syncSessionLoop(target.projectDir, since),
        () => passDreamGates(target, { dataDir, minSessions: TRANSCRIPTS + 1, sessionCache: cache }),
      );

      return {
        ratios: {
          'closed time gate ÷ bare statSync': { value: timeGate.ratio, target: 3, better: 'lower', note: `CPU time ${timeGate.cpuRatio.toFixed(2)}` },
          'session gate (10k transcripts, un-throttled) ÷ bare readdirSync + statSync loop': {
            value: sessionGate.ratio,
            target: 1.3,
            better: 'lower',
            note: `per round ${sessionGate.spread[0].toFixed(2)}–${sessionGate.spread[1].toFixed(2)}, CPU time ${sessionGate.cpuRatio.toFixed(2)}`,
          },
        },
        figures: {
          'bare statSync µs': (timeGate.baselineMs / TIME_GATE_BATCH) * 1000,
          'closed time gate µs': (timeGate.subjectMs / TIME_GATE_BATCH) * 1000,
          'bare callback fs.stat µs': (callbackStatRound.baselineMs / TIME_GATE_BATCH) * 1000,
          'bare readdirSync + statSync loop ms': sessionGate.baselineMs,
          'session gate ms (un-throttled)': sessionGate.subjectMs,
          'bare loop on fs.promises.stat, 32 wide ms': promisesLoop.baselineMs,
          'bare loop on fs.promises.stat, one at a time ms': promisesLoop.subjectMs,
          'throttled session gate ms (count reused)': throttled.subjectMs,
          transcripts: TRANSCRIPTS,
          'sessions counted': expected,
        },
      };
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  },
};
