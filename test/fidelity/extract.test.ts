import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_TYPES } from '../../src/shared/memory-types.js';
import { realpathDeepestExistingSync } from '../../src/main/core/memory-lock.js';
import { writeFileAtomic } from '../../src/main/core/safe-fs.js';
import { checkNewFileName } from '../../src/main/memdir/memory-service.js';
import { parseTopicFile, scanMemoryDir, serializeTopicFile } from '../../src/main/memdir/index.js';
import { memoryWritesInTurn } from '../../src/main/transcripts/memory-writes.js';
import {
  EXCLUSIVE_CASES,
  EXTRACT_FIXTURE,
  type ExtractHome,
  type ExtractRecording,
  SEEDED_TIME,
  WRITES_SCRIPT,
  layOutExtractHome,
  placeInput,
} from '../../src/main/extract/test-support/claude-code-extract-cases.js';

// What the real Claude Code 2.1.332 did in its own extraction (live, re-recorded:
// src/main/extract/claude-code-interop.test.ts): the memories it left on disk, what it refused
// its extraction agent, and which turns it skipped because the conversation had written to
// memory itself. Memdir must read the client's memories as the client wrote them (R-TOPIC),
// refuse at least what the client refuses, and skip at least the turns it skips (R-EXCLUSIVE).
const recording = JSON.parse(fs.readFileSync(EXTRACT_FIXTURE, 'utf8')) as ExtractRecording;
const SESSION = '0f6e2c1a-3b4d-4e5f-8a7b-9c0d1e2f3a4b';
const TIME = '2026-12-05T12:00:00.000Z';
/** A recorded file as the client wrote it, with a session id and a time for the placeholders. */
const clientFile = (key: string) => recording.files[key]!.replaceAll('<session>', SESSION).replaceAll('<time>', TIME);

describe(`Claude Code ${recording.client}'s extraction, as Memdir reads and refuses it`, () => {
  let tmp: string;
  let home: ExtractHome;
  beforeAll(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-extract-fidelity-')));
    home = layOutExtractHome(tmp);
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('R-TOPIC: every Write or Edit of a personal memory without originSessionId rewrites its frontmatter the client way', () => {
    // A slug for a name, the type (and every key but name and description) under `metadata:`
    // after `node_type: memory`, then the session and the time; a blank line before the body.
    expect(recording.files['$MEM/feedback_flat.md']).toBe(
      '---\nname: no-orm-sql-only\ndescription: never use an ORM; write SQL\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: <session>\n  modified: <time>\n---\n\nWrite SQL by hand.\n',
    );
    // An Edit of a file Memdir wrote is rewritten the same way.
    expect(recording.files['$MEM/build.md']).toMatch(
      /^---\nname: build\ndescription: how the project builds\nmetadata:\n {2}node_type: memory\n {2}type: project\n/,
    );
    // Already stamped: only `modified` changes, in place; team memories get `modified` only; no frontmatter, no change.
    expect(recording.files['$MEM/stamped_nested.md']).not.toContain(SEEDED_TIME);
    expect(recording.files['$MEM/stamped_flat.md']).toContain(
      '\ntype: project\noriginSessionId: 11111111-2222-4333-8444-555555555555\nmodified: <time>\n---\nKept too.\n',
    );
    expect(recording.files['$MEM/team/dashboards.md']).toBe(
      '---\nname: Dashboards\ndescription: "where: grafana # the board"\ntype: reference\nmodified: <time>\n---\nhttps://grafana.example\n',
    );
    expect(recording.files['$MEM/bare.md']).toBe('No frontmatter at all.\n');
    // The index line is the model's own Edit: the client adds none.
    expect(recording.files['$MEM/MEMORY.md']).toBe('- [Build](build.md) — how the project builds\n- [No ORM](no-orm.md) — write SQL\n');
  });

  it.each([
    ['$MEM/no-orm.md', { name: 'no-orm', description: 'never use an ORM; write SQL', type: 'feedback' }, '\nNever use an ORM.\n\n**Why:** the user said so.\n'],
    ['$MEM/feedback_flat.md', { name: 'no-orm-sql-only', description: 'never use an ORM; write SQL', type: 'feedback' }, 'Write SQL by hand.\n'],
    ['$MEM/user_role.md', { name: 'role-data-scientist', description: "the user's role: data scientist — 数据科学家", type: 'user' }, 'Data scientist.\n'],
  ] as const)('R-TOPIC: Memdir writes %s, new, byte for byte as the client left it', (key, fields, body) => {
    expect(serializeTopicFile({ ...fields, originSessionId: SESSION, modified: TIME }, body)).toBe(clientFile(key));
  });

  it.each([
    [
      '$MEM/no-orm.md',
      { name: 'no-orm', description: 'never use an ORM; write SQL', type: 'feedback', originSessionId: SESSION, modified: TIME, layout: 'nested' },
    ],
    [
      '$MEM/feedback_flat.md',
      { name: 'no-orm-sql-only', description: 'never use an ORM; write SQL', type: 'feedback', originSessionId: SESSION, modified: TIME, layout: 'nested' },
    ],
    [
      '$MEM/user_role.md',
      {
        name: 'role-data-scientist',
        description: "the user's role: data scientist — 数据科学家",
        type: 'user',
        originSessionId: SESSION,
        modified: TIME,
        layout: 'nested',
      },
    ],
    ['$MEM/build.md', { name: 'build', description: 'how the project builds', type: 'project', originSessionId: SESSION, modified: TIME, layout: 'nested' }],
    [
      '$MEM/stamped_flat.md',
      {
        name: 'Stamped Flat',
        description: 'already stamped, flat',
        type: 'project',
        originSessionId: '11111111-2222-4333-8444-555555555555',
        modified: TIME,
        layout: 'flat',
      },
    ],
    [
      '$MEM/team/dashboards.md',
      { name: 'Dashboards', description: 'where: grafana # the board', type: 'reference', originSessionId: null, modified: TIME, layout: 'flat' },
    ],
  ] as const)('R-TOPIC: Memdir reads %s as the client wrote it', (key, expected) => {
    const parsed = parseTopicFile(clientFile(key), path.basename(key));
    expect(parsed.issues).toEqual([]);
    expect(parsed.meta).toEqual({ ...expected, created: null });
  });

  it('R-TOPIC: a scan shows the client-written memories with their names, descriptions and types', () => {
    const dir = path.join(tmp, 'scan');
    fs.mkdirSync(path.join(dir, 'team'), { recursive: true });
    for (const key of Object.keys(recording.files).filter((k) => k.startsWith('$MEM/'))) fs.writeFileSync(path.join(dir, key.slice(5)), clientFile(key));
    const scan = scanMemoryDir(dir, { scope: 'private' });
    const shown = Object.fromEntries(scan.memories.map((m) => [m.file, [m.name, m.description, m.type, m.layout]]));
    expect(shown).toMatchObject({
      'no-orm.md': ['no-orm', 'never use an ORM; write SQL', 'feedback', 'nested'],
      'feedback_flat.md': ['no-orm-sql-only', 'never use an ORM; write SQL', 'feedback', 'nested'],
      'user_role.md': ['role-data-scientist', "the user's role: data scientist — 数据科学家", 'user', 'nested'],
      'build.md': ['build', 'how the project builds', 'project', 'nested'],
      'stamped_nested.md': ['Stamped Nested', 'already stamped', 'project', 'nested'],
    });
    // Only the file without frontmatter has a frontmatter problem (the orphans are the index's business).
    const frontmatterProblems = scan.problems.filter((p) => p.code === 'bad-frontmatter' || p.code === 'invalid-type').map((p) => p.file);
    expect([...new Set(frontmatterProblems)]).toEqual(['bare.md']);
  });

  it('confinement: what the client refused its extraction agent, Memdir refuses too', async () => {
    const writes = WRITES_SCRIPT.flat().filter((c) => c.name === 'Write' || c.name === 'Edit');
    const refused = writes.filter((c) => recording.writes[c.id]!.isError);
    expect(refused.map((c) => c.id).sort()).toEqual(
      ['toolu_agents', 'toolu_dotdot', 'toolu_filelink', 'toolu_not_md', 'toolu_outside', 'toolu_through_memlink'].sort(),
    );
    for (const call of refused) {
      const rel = path.relative(home.memoryDir, placeInput(call.input, home).file_path as string);
      // Memdir's extraction names a new memory by a plain file name, and its writer refuses links on the way.
      const named = (() => {
        try {
          checkNewFileName(rel);
          return true;
        } catch {
          return false;
        }
      })();
      const written = await writeFileAtomic(home.memoryDir, rel, 'x\n').then(
        () => true,
        () => false,
      );
      expect({ id: call.id, accepted: named && written }).toEqual({ id: call.id, accepted: false });
    }
  });

  it('confinement: the client lets its agent write through a linked folder inside the memory dir (the file lands outside); Memdir refuses', async () => {
    expect(recording.writes.toolu_linked_dir!.isError).toBe(false);
    expect(recording.files['$ROOT/outside/escaped.md']).toContain('name: escaped');
    await expect(writeFileAtomic(home.memoryDir, 'linked/escaped.md', 'x\n')).rejects.toThrow();
    expect(fs.existsSync(path.join(home.outside, 'escaped.md'))).toBe(false);
    // A linked file it refuses itself ("it is a symbolic link").
    expect(recording.writes.toolu_filelink!.result).toMatch(/it is a symbolic link/);
  });

  it.each(EXCLUSIVE_CASES.map((c) => [c.name, c] as const))('R-EXCLUSIVE: %s', (name, c) => {
    const client = recording.exclusive[name]!;
    const input = placeInput(c.call.input, home);
    const filePath = typeof input.file_path === 'string' ? input.file_path : null;
    const turn = {
      cwd: home.project,
      toolCalls: [
        {
          id: c.call.id,
          name: c.call.name,
          input,
          filePath,
          cwd: home.project,
          uuid: 'u1',
          messageId: null,
          timestamp: null,
          result: { isError: client.callFailed, text: '', truncated: false, uuid: null, timestamp: null },
        },
      ],
    };
    const realpath = (p: string) => {
      try {
        return realpathDeepestExistingSync(p);
      } catch {
        return p;
      }
    };
    const memdirSkips = memoryWritesInTurn(turn, home.memoryDir, { realpath }).length > 0;
    // The client compares the path as written; Memdir resolves links, so a write through a link
    // to the memory dir counts for Memdir only (it skips more, never less).
    const expected = name === 'Write through a link to the memory dir' ? true : client.skippedAsWritten;
    expect(memdirSkips).toBe(expected);
  });

  it('R-TYPES: the client offers the same four types, nested under metadata in its format', () => {
    expect(recording.memorySection).toContain('metadata:\n  type: user | feedback | project | reference\n');
    const described = [...recording.memorySection.matchAll(/`(\w+)`: /g)].map((m) => m[1]);
    expect(described).toEqual([...MEMORY_TYPES]);
  });

  it('R-EXTRACT: one pass after each turn, over the messages since its cursor; turns whose prompts have fewer than 3 words between spaces are skipped', () => {
    expect(recording.cadence.recentMessages).toEqual([2, 2]);
    expect(recording.cadence.events.filter((e) => e.startsWith('skipping'))).toEqual([
      'skipping — not enough user prose',
      'skipping — not enough user prose',
      'skipping — not enough user prose',
    ]);
  });
});
