import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deletedFiles, listHistory, readAtRevision } from '../history/history.js';
import { indexEntries, parseIndex } from '../../shared/index-format.js';
import type { MemoryType } from '../../shared/memory-types.js';
import { scanMemoryDir } from '../memdir/scan-dir.js';
import { NO_SHARED_FIXTURES, sharedMemoryFixtures } from '../memdir/test-support/shared-fixtures.js';
import { type DuplicateMemory, findDuplicatePairs, findSimilar, readDuplicateMemories } from './find-duplicates.js';
import { compareMemories, fingerprintOf } from './memory-similarity.js';
import { mergeMemories } from './merge-memories.js';

const FIXTURES = sharedMemoryFixtures();

const memory = (file: string, name: string, description: string, body = '', type: MemoryType = 'feedback'): DuplicateMemory => ({
  file,
  name,
  description,
  body,
  type,
  text: body,
  mtimeMs: 0,
});
const kindOf = (a: DuplicateMemory, b: DuplicateMemory) => compareMemories(fingerprintOf(a), fingerprintOf(b)).kind;

describe('the duplicate rule', () => {
  it('finds the same fact said twice in other words, in English and in Chinese', () => {
    expect(
      kindOf(
        memory('a.md', 'No ORM', 'We write SQL by hand; never introduce an ORM'),
        memory('b.md', 'SQL by hand', 'Never add an ORM: all SQL is written by hand'),
      ),
    ).toBe('similar');
    expect(
      kindOf(
        memory('a.md', '用户偏好', '回答用中文，代码注释用英文', '', 'user'),
        memory('b.md', '语言偏好', '用户希望回答用中文，代码注释写英文', '', 'user'),
      ),
    ).toBe('similar');
    expect(kindOf(memory('a.md', '代码审查偏好', '不要自动提交，先让用户看 diff'), memory('b.md', '提交前先审查', '别自动提交：提交前先让用户审查 diff'))).toBe(
      'similar',
    );
  });

  it('keeps apart what only looks alike: another number, the opposite rule, another subject', () => {
    expect(
      kindOf(
        memory('a.md', 'Source 3', 'Ingestion source 3: schedule, owner and quirks of this feed'),
        memory('b.md', 'Source 4', 'Ingestion source 4: schedule, owner and quirks of this feed'),
      ),
    ).toBe(null);
    expect(
      kindOf(memory('a.md', 'DB in tests', 'Always mock the database in unit tests'), memory('b.md', 'DB in tests', 'Never mock the database in unit tests')),
    ).toBe(null);
    expect(
      kindOf(
        memory('a.md', 'Deploy window', 'Deploys happen on Tuesday mornings'),
        memory('b.md', 'Grafana board', 'Where the checkout latency dashboard lives'),
      ),
    ).toBe(null);
  });

  it('calls a copied body exact, and near what a dream merges by itself', () => {
    const body = 'Mocks hid a migration bug last quarter. Use the docker-compose Postgres.';
    expect(
      kindOf(
        memory('a.md', 'Real database', 'Do not mock the database', body),
        memory('b.md', 'Integration tests', 'Integration tests hit a real database', body),
      ),
    ).toBe('exact');
  });

  it('lists pairs among hundreds of memories without comparing each with each, and none among 215 numbered feeds', () => {
    const feeds = Array.from({ length: 215 }, (_, i) =>
      memory(
        `source_${i}.md`,
        `Source ${i}`,
        `Ingestion source ${i}: schedule, owner and quirks of this feed`,
        `Feed ${i} arrives hourly; retries are safe.`,
        'project',
      ),
    );
    expect(findDuplicatePairs(feeds)).toEqual([]);
    const withCopy = [
      ...feeds,
      memory(
        'feed_copy.md',
        'Feed 7 again',
        'Ingestion source 7: schedule, owner and quirks of this feed',
        'Feed 7 arrives hourly; retries are safe.',
        'project',
      ),
    ];
    expect(findDuplicatePairs(withCopy).map((p) => p.files.sort())).toEqual([['feed_copy.md', 'source_7.md']]);
  });

  it.skipIf(!FIXTURES)(
    `on real memory directories: finds the one repeated rule of yhz61010/android and nothing among the 200 memories of the two largest${FIXTURES ? '' : ` (skipped: ${NO_SHARED_FIXTURES})`}`,
    async () => {
      const pairsOf = async (id: string) => {
        const dir = path.join(FIXTURES!, id, 'memory');
        await fs.access(dir);
        return findDuplicatePairs(readDuplicateMemories(dir, scanMemoryDir(dir, { scope: 'private' }).memories));
      };
      expect((await pairsOf('yhz61010__android')).map((p) => [...p.files].sort())).toEqual([['feedback_english_code_commits.md', 'user_language.md']]);
      expect(await pairsOf('N3rdage__the-library')).toEqual([]);
      expect(await pairsOf('PinKushin__Tf2DemoSalvage')).toEqual([]);
    },
  );

  it('warns about a draft that repeats a memory, never about the memory itself', () => {
    const existing = [
      memory('feedback_sql.md', 'No ORM', 'We write SQL by hand; never introduce an ORM'),
      memory('reference_grafana.md', 'Checkout dashboard', 'Grafana board for checkout latency'),
    ];
    expect(
      findSimilar({ name: 'Hand-written SQL', description: 'Never introduce an ORM; SQL is written by hand', body: '', type: 'feedback' }, existing).map(
        (m) => m.file,
      ),
    ).toEqual(['feedback_sql.md']);
    expect(findSimilar(existing[0]!, existing, 'feedback_sql.md')).toEqual([]);
  });
});

describe('mergeMemories', () => {
  let root: string;
  let memoryDir: string;
  const where = () => ({ memoryDir, scope: 'private' as const, dataDir: path.join(root, 'data') });
  const write = (rel: string, text: string) => fs.writeFile(path.join(memoryDir, rel), text);
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-merge-'));
    memoryDir = path.join(root, 'memory');
    await fs.mkdir(memoryDir);
    await write('feedback_sql.md', '---\nname: No ORM\ndescription: We write SQL by hand\ntype: feedback\n---\n\nThe ORM was removed after the outage.\n');
    await write('feedback_raw_sql.md', '---\nname: Raw SQL\ndescription: Never add an ORM; SQL by hand\ntype: feedback\n---\n\nUse the sqlc helpers.\n');
    await write('MEMORY.md', '- [No ORM](feedback_sql.md) — We write SQL by hand\n- [Raw SQL](feedback_raw_sql.md) — Never add an ORM\n');
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('keeps what both said in one memory, one pointer, one history entry — and the other stays restorable', async () => {
    const { entry, impact } = await mergeMemories(where(), {
      keeper: 'feedback_sql.md',
      others: ['feedback_raw_sql.md'],
      now: new Date('2026-12-05T10:00:00Z'),
    });
    const merged = await fs.readFile(path.join(memoryDir, 'feedback_sql.md'), 'utf8');
    expect(merged).toContain('The ORM was removed after the outage.');
    expect(merged).toContain('Use the sqlc helpers.');
    expect(merged).toContain(
      '_Merged on 2026-12-05 from:_\n- `feedback_sql.md` — We write SQL by hand\n- `feedback_raw_sql.md` — Never add an ORM; SQL by hand',
    );
    await expect(fs.access(path.join(memoryDir, 'feedback_raw_sql.md'))).rejects.toThrow();
    expect(indexEntries(parseIndex(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8'))).map((e) => e.file)).toEqual(['feedback_sql.md']);
    expect(impact.after.lines).toBe(1);
    const history = await listHistory(memoryDir, { dataDir: where().dataDir });
    expect(history[0]).toMatchObject({ rev: entry!.rev, source: 'manual', summary: 'Merge feedback_raw_sql.md into feedback_sql.md' });
    expect(history[0]!.files.map((f) => `${f.status} ${f.path}`).sort()).toEqual([
      'deleted feedback_raw_sql.md',
      'modified MEMORY.md',
      'modified feedback_sql.md',
    ]);
    const gone = await deletedFiles(memoryDir, { dataDir: where().dataDir });
    expect(gone.map((g) => g.path)).toEqual(['feedback_raw_sql.md']);
    expect(await readAtRevision(memoryDir, gone[0]!.rev, 'feedback_raw_sql.md', { dataDir: where().dataDir })).toContain('Use the sqlc helpers.');
  });

  it('points the other pointer at the keeper when the keeper had none', async () => {
    await write('MEMORY.md', '# Index\n- [Raw SQL](feedback_raw_sql.md) — Never add an ORM\n');
    await mergeMemories(where(), { keeper: 'feedback_sql.md', others: ['feedback_raw_sql.md'] });
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe('# Index\n- [Raw SQL](feedback_sql.md) — Never add an ORM\n');
  });

  it('refuses when a file changed since it was shown, and writes nothing', async () => {
    const shown = await fs.readFile(path.join(memoryDir, 'feedback_raw_sql.md'), 'utf8');
    await write('feedback_raw_sql.md', `${shown}\nEdited meanwhile.\n`);
    await expect(
      mergeMemories(where(), { keeper: 'feedback_sql.md', others: ['feedback_raw_sql.md'], expect: { 'feedback_raw_sql.md': shown } }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(await fs.readFile(path.join(memoryDir, 'feedback_raw_sql.md'), 'utf8')).toContain('Edited meanwhile.');
    expect(await fs.readFile(path.join(memoryDir, 'feedback_sql.md'), 'utf8')).not.toContain('Merged');
  });
});
