import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeCodeVersionIn } from './claude-code-version.js';

let root: string;
const at = (name: string, text: string, secondsAgo: number) => {
  const file = path.join(root, name);
  return fs.writeFile(file, text).then(() => fs.utimes(file, Date.now() / 1000 - secondsAgo, Date.now() / 1000 - secondsAgo));
};

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-version-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

describe('the Claude Code version of a project’s transcripts', () => {
  it('is none, with no transcript, in a folder without sessions', async () => {
    expect(await claudeCodeVersionIn([root, path.join(root, 'missing')])).toEqual({ version: null, hasTranscript: false });
  });

  it('is the newest transcript’s, read as JSON whatever its spacing; a newer one naming none is passed over', async () => {
    await at('a.jsonl', '{"type":"user","version":"2.1.88","cwd":"/w"}\n', 30);
    await at('b.jsonl', 'not json\n{"type": "user", "cwd": "/w", "version": "2.1.332"}\n', 20);
    await at('c.jsonl', '{"type":"summary","summary":"no version here"}\n', 10);
    expect(await claudeCodeVersionIn([root])).toEqual({ version: '2.1.332', hasTranscript: true });
  });

  it('is none, with transcripts, when they do not say', async () => {
    await at('a.jsonl', '{"type":"summary","summary":"x"}\n{"version": 2}\n', 10);
    expect(await claudeCodeVersionIn([root])).toEqual({ version: null, hasTranscript: true });
  });
});
