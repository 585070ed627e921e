// Every failure a person reads is worded in src/shared/failure-words.ts, never as a code or a library's text (real fs, real loopback).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureSentence, failureWords, knownFailureWords, notJsonWords, withReason } from '../../shared/failure-words.js';

const CODE = /\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+|SQLITE_[A-Z]+)\b|fetch failed/;

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('failureWords', () => {
  it('words what the file system said, with the path, never its code', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-words-'));
    try {
      fs.writeFileSync(path.join(dir, 'file'), 'x');
      const cases: [() => unknown, string][] = [
        [() => fs.readFileSync(dir), 'it is a folder, not a file'],
        [() => fs.readFileSync(path.join(dir, 'nope')), 'it does not exist'],
        [() => fs.readdirSync(path.join(dir, 'file', 'x')), 'a part of its path is a file, not a folder'],
        [() => fs.mkdirSync(path.join(dir, 'file')), 'something already exists there'],
      ];
      for (const [fail, words] of cases) {
        let error: unknown;
        try {
          fail();
        } catch (e) {
          error = e;
        }
        expect(failureWords(error)).toBe(words);
        // With the path when the error names one (a read of a folder does not).
        expect(failureSentence(error)).toMatch(new RegExp(`^(${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*: )?${words}$`));
        expect(failureSentence(error)).not.toMatch(CODE);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("words a refused fetch from its cause, and fetch's refusal of a port", async () => {
    const port = await closedPort();
    const refused = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(String(refused)).toMatch(/fetch failed/);
    expect(failureWords(refused)).toBe('nothing is listening there (the connection was refused)');
    const localhost = await fetch(`http://localhost:${port}/`).catch((e: unknown) => e);
    expect(failureWords(localhost)).toBe('nothing is listening there (the connection was refused)');
    const badPort = await fetch('http://127.0.0.1:9/').catch((e: unknown) => e);
    expect(failureWords(badPort)).not.toMatch(CODE);
    expect(failureWords(badPort)).toMatch(/port/);
    expect(failureSentence(refused)).not.toMatch(CODE);
  });

  it('names the host a lookup did not find (a typo or a proxy in the way is then plain to see)', async () => {
    const lookup = await fetch('http://no-such-host.invalid/').catch((e: unknown) => e);
    const words = failureWords(lookup);
    expect(words).toMatch(/^its host name no-such-host\.invalid (is not known|could not be looked up)/);
    expect(knownFailureWords(lookup)).toBe(words);
    expect(knownFailureWords(new Error('something else'))).toBeNull();
  });

  it('keeps the first line of an error that carries no code (Memdir’s own bug, to report)', () => {
    expect(failureSentence(new Error('The index is odd.\nstack'))).toBe('The index is odd.');
    expect(failureWords(Object.assign(new Error("EWHAT: something odd, open '/x'"), { code: 'EWHAT' }))).toBe('something odd');
  });

  it('says where JSON stops being JSON as a person counts, not as V8 words it', () => {
    for (const text of ['{"a": 1,}', '{ bad', '{\n  "a": 1\n  "b": 2\n}', '{"a":', '// c\n{}']) {
      let error: unknown;
      try {
        JSON.parse(text);
      } catch (e) {
        error = e;
      }
      const words = notJsonWords(text, error);
      expect(words).toMatch(/^it is not valid JSON( \((line \d+, column \d+|it ends too early)\))?$/);
    }
    let error: unknown;
    try {
      JSON.parse('{\n  "a": 1\n  "b": 2\n}');
    } catch (e) {
      error = e;
    }
    expect(notJsonWords('{\n  "a": 1\n  "b": 2\n}', error)).toBe('it is not valid JSON (line 3, column 3)');
  });
});

describe('withReason', () => {
  it('an outer sentence takes in the inner one without naming its file twice, and a system error in words', () => {
    const inner = new Error('Cannot write team/x.md: the disk holding /h/memory is full — free some space and try again');
    expect(withReason('Could not write team/x.md', 'team/x.md', inner)).toBe(
      'Could not write team/x.md: the disk holding /h/memory is full — free some space and try again',
    );
    // Named relative to its own folder inside: the same file.
    expect(withReason('Could not write team/x.md', 'team/x.md', new Error('Cannot write x.md: permission denied in /h/team'))).toBe(
      'Could not write team/x.md: permission denied in /h/team',
    );
    // Another subject stays as said.
    expect(withReason('Could not write team/x.md', 'team/x.md', new Error("Cannot take Memdir's lock: the disk is full"))).toBe(
      "Could not write team/x.md: Cannot take Memdir's lock: the disk is full",
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-words-'));
    try {
      let error: unknown;
      try {
        fs.symlinkSync('/nowhere', path.join(dir, 'missing', 'memdir'));
      } catch (e) {
        error = e;
      }
      const said = withReason(`The memdir command could not be installed at ${dir}/missing/memdir`, `${dir}/missing/memdir`, error);
      expect(said).toBe(`The memdir command could not be installed at ${dir}/missing/memdir: it does not exist`);
      expect(said).not.toMatch(CODE);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
