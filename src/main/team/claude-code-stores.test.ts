/**
 * R-TEAM, R-SYNC, R-SYNC-SECURITY: Memdir beside a folder Claude Code 2.1.332 syncs itself, held to
 * the recording of what the client really did (test/fixtures/claude-code-stores/, made by
 * claude-code-stores-interop.test.ts). Always runs: no binary needed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sanitizePathKey } from '../../shared/path-key.js';
import { listMemoryFiles } from '../memdir/list-memory-files.js';
import { scanText } from '../secrets/scanner.js';
import { useSharedTeamServer } from './test-support/shared-server.js';
import {
  FAKE_GITHUB_TOKEN,
  HOSTILE_KEYS,
  RW_MOUNT,
  RW_STORE,
  SIDECARS,
  STORES_FIXTURE,
  type StoresRecording,
} from './test-support/claude-code-stores-cases.js';

const recording = JSON.parse(await fs.readFile(STORES_FIXTURE, 'utf8')) as StoresRecording;
const [first, last] = [recording.sessions[0]!, recording.sessions.at(-1)!];
const real = (text: string) => text.replaceAll('<github-token>', FAKE_GITHUB_TOKEN);
const h = useSharedTeamServer();

/** The memory dir as the client left it, under `memoryDir`. */
async function layOutAsSynced(memoryDir: string): Promise<void> {
  for (const [rel, { content }] of Object.entries(last.disk)) {
    await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
    await fs.writeFile(path.join(memoryDir, rel), real(content));
  }
}

describe('what the client refuses, Memdir refuses too', () => {
  it('every path key the client would not write is one Memdir refuses', () => {
    const written = new Set(Object.keys(first.disk).map((rel) => `/${path.posix.relative(RW_MOUNT, rel)}`));
    const notWritten = Object.keys(first.server[RW_STORE]!).filter((key) => !written.has(key));
    // The recording: the traversals and the hidden name never reached the disk; three of them were refused aloud.
    expect(notWritten.sort()).toEqual([HOSTILE_KEYS.percent, HOSTILE_KEYS.dotdot, HOSTILE_KEYS.hidden, HOSTILE_KEYS.backslash, HOSTILE_KEYS.fullWidth].sort());
    expect(first.log.filter((l) => l.includes('refusing to write escaping path')).length).toBe(3);
    for (const key of notWritten) expect(sanitizePathKey(key.slice(1)).ok, key).toBe(false);
  });

  it('the file the client would not push for a secret is one Memdir finds a secret in', async () => {
    const skipped = first.log.flatMap((l) => /skipping (\S+) \(secret detected\)/.exec(l)?.[1] ?? []);
    expect(skipped).toEqual(['/secret.md']);
    expect(Object.keys(first.server[RW_STORE]!)).not.toContain('/secret.md');
    const findings = await scanText(real(first.disk[`${RW_MOUNT}/secret.md`]!.content));
    expect(findings.length).toBeGreaterThan(0);
  });

  it("the client's sidecar files are not memories in Memdir's scan", async () => {
    const memoryDir = path.join(h.root, 'scan', 'memory');
    await layOutAsSynced(memoryDir);
    const listed = listMemoryFiles(path.join(memoryDir, 'team'), { excludeTeam: false }).topics.map((t) => t.file);
    for (const sidecar of SIDECARS) expect(listed.some((f) => f.endsWith(sidecar))).toBe(false);
    expect(listed).toContain('memstore_team/local.md');
  });
});
