import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryWritesInTurn } from './memory-writes.js';
import type { ToolCall, Turn } from './turn-types.js';

function call(name: string, input: Record<string, unknown>, cwd: string | null = '/work/app', isError = false): ToolCall {
  const rawPath = input.file_path ?? input.notebook_path;
  return {
    id: `t-${name}-${String(rawPath)}`,
    name,
    input,
    filePath: typeof rawPath === 'string' ? rawPath : null,
    cwd,
    uuid: 'u',
    messageId: 'm',
    timestamp: null,
    result: { isError, text: '', truncated: false, uuid: 'r', timestamp: null },
  };
}

const memoryDir = '/home/me/.claude/projects/-work-app/memory';
const turn = (toolCalls: ToolCall[], cwd: string | null = '/work/app'): Pick<Turn, 'toolCalls' | 'cwd'> => ({ toolCalls, cwd });
const found = (t: Pick<Turn, 'toolCalls' | 'cwd'>, dir = memoryDir, realpath?: (p: string) => string) =>
  memoryWritesInTurn(t, dir, { realpath }).map((w) => [w.call.name, w.resolvedPath, w.failed]);

describe('memoryWritesInTurn (R-EXCLUSIVE)', () => {
  it('finds Write, Edit, MultiEdit and NotebookEdit calls inside the memory dir, and nothing else', () => {
    const t = turn([
      call('Write', { file_path: `${memoryDir}/feedback_sql.md`, content: '...' }),
      call('Edit', { file_path: `${memoryDir}/MEMORY.md`, old_string: 'a', new_string: 'b' }),
      call('MultiEdit', { file_path: `${memoryDir}/team/project_api.md`, edits: [] }),
      call('NotebookEdit', { notebook_path: `${memoryDir}/notes.ipynb`, new_source: '' }),
      call('Read', { file_path: `${memoryDir}/MEMORY.md` }),
      call('Bash', { command: `echo hi > ${memoryDir}/x.md` }),
      call('Write', { file_path: '/work/app/src/index.ts', content: '' }),
      call('Write', { file_path: `${memoryDir}-backup/x.md`, content: '' }),
    ]);
    expect(found(t)).toEqual([
      ['Write', `${memoryDir}/feedback_sql.md`, false],
      ['Edit', `${memoryDir}/MEMORY.md`, false],
      ['MultiEdit', `${memoryDir}/team/project_api.md`, false],
      ['NotebookEdit', `${memoryDir}/notes.ipynb`, false],
    ]);
  });

  it('resolves relative paths against the call’s cwd, and `..` both ways', () => {
    const cwd = '/home/me/.claude/projects/-work-app';
    const t = turn([
      call('Write', { file_path: 'memory/user_role.md' }, cwd),
      call('Write', { file_path: 'memory/../memory/./x.md' }, cwd),
      call('Write', { file_path: 'memory/../escape.md' }, cwd),
      call('Edit', { file_path: `${memoryDir}/../../-work-app/memory/y.md` }, null),
      call('Edit', { file_path: `${memoryDir}/../memory-old/z.md` }, null),
      call('Write', { file_path: '../../../../work/app/README.md' }, `${memoryDir}/team`),
    ]);
    expect(found(t)).toEqual([
      ['Write', `${memoryDir}/user_role.md`, false],
      ['Write', `${memoryDir}/x.md`, false],
      ['Edit', `${memoryDir}/y.md`, false],
    ]);
  });

  it('falls back to the turn’s cwd, and leaves out a relative path with no cwd at all', () => {
    expect(found(turn([call('Write', { file_path: 'x.md' }, null)], memoryDir))).toEqual([['Write', `${memoryDir}/x.md`, false]]);
    expect(found(turn([call('Write', { file_path: 'x.md' }, null)], null))).toEqual([]);
  });

  it('reports failed attempts as such, for the caller to weigh', () => {
    expect(found(turn([call('Write', { file_path: `${memoryDir}/a.md` }, '/', true)]))).toEqual([['Write', `${memoryDir}/a.md`, true]]);
  });

  it('compares NFC forms (macOS may report decomposed names)', () => {
    const dir = '/Users/me/.claude/projects/-café/memory';
    const nfd = dir.normalize('NFD');
    expect(found(turn([call('Write', { file_path: `${nfd}/x.md` })]), dir)).toHaveLength(1);
  });

  describe('with a realpath from the caller', () => {
    let tmp: string;
    beforeEach(() => {
      tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-writes-')));
    });
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('sees a write through a symlink to the memory dir', () => {
      const real = path.join(tmp, 'real-memory');
      fs.mkdirSync(real);
      fs.symlinkSync(real, path.join(tmp, 'linked'));
      fs.writeFileSync(path.join(real, 'a.md'), '');
      const t = turn([call('Edit', { file_path: path.join(tmp, 'linked', 'a.md') })]);
      expect(found(t, real)).toEqual([]);
      expect(found(t, real, (p) => fs.realpathSync(p))).toEqual([['Edit', path.join(real, 'a.md'), false]]);
    });
  });
});
