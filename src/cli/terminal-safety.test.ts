// Issue 15, finding 7: text from outside — a server's answers, team names, error messages, file
// names, memory contents — never reaches the terminal raw. A hostile server on loopback and
// memories written by another program, run through the CLI's one entry point.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from './command.js';
import { runCli } from './main.js';

// ESC (CSI, OSC: clear the screen, set the title, a hyperlink), the one-byte C1 CSI, BEL,
// backspace, carriage return, and the right-to-left override.
const HOSTILE = '\u001b[2J\u001b]0;owned\u0007\u009b31m\b\b\r\u202e';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let root: string;
let home: string;
let server: http.Server;
let url: string;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-terminal-')));
  home = path.join(root, 'home');
  const memory = path.join(home, 'projects', '-work-app', 'memory');
  await fs.mkdir(path.join(memory, 'team'), { recursive: true });
  await fs.writeFile(
    path.join(memory, `feedback_${HOSTILE}.md`),
    `---\nname: Colours${HOSTILE}\ndescription: ${HOSTILE}evil\ntype: feedback\n---\n\nclick \u001b]8;;http://evil.example\u0007here\u001b]8;;\u0007 ${HOSTILE}\n`,
  );
  await fs.writeFile(path.join(memory, 'MEMORY.md'), `- [Gone${HOSTILE}](gone${HOSTILE}.md) — ${HOSTILE}\n`);
  // A server that answers with escapes in every field a client prints.
  server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(req.url === '/v1/me' ? 200 : 503, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        req.url === '/v1/me'
          ? { team: `platform${HOSTILE}`, member: `mallory${HOSTILE}`, tokenId: '0'.repeat(16) }
          : { error: 'unavailable', message: `down${HOSTILE}` },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(args: string[], stdin?: string): Promise<string> {
  let all = '';
  const io: CliIo = {
    out: (t) => (all += t),
    err: (t) => (all += t),
    env: { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root },
    cwd: root,
    ...(stdin ? { stdin: Readable.from([stdin]) } : {}),
  };
  await runCli(args, io);
  return all;
}

describe('terminal output', () => {
  it('shows escape sequences and bidi overrides from a server, file names and memory contents as \\uXXXX, never raw', async () => {
    const outputs = [
      await memdir(
        ['team', 'connect', '--project', '-work-app', '--home', home, '--server', url, '--team', 'platform', '--token-stdin'],
        `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`,
      ),
      await memdir(['show', '-work-app', '--home', home]),
      await memdir(['show', '-work-app', `feedback_${HOSTILE}.md`, '--home', home]),
      await memdir(['lint', '--home', home]),
      await memdir(['scan', '--home', home]),
      await memdir(['show', '-work-app', `nope${HOSTILE}.md`, '--home', home]),
      await memdir([`bogus${HOSTILE}`]),
    ];
    for (const out of outputs) {
      expect(out).not.toMatch(RAW);
      expect(out.length).toBeGreaterThan(0);
    }
    expect(outputs[0]).toContain('platform\\u001b[2J\\u001b]0;owned\\u0007\\u009b31m\\u0008\\u0008\\u000d\\u202e');
    expect(outputs[2]).toContain('\\u001b]8;;http://evil.example\\u0007here');
  });

  it('keeps JSON valid and the same once parsed', async () => {
    const out = await memdir(['show', '-work-app', `feedback_${HOSTILE}.md`, '--home', home, '--json']);
    expect(out).not.toMatch(RAW);
    expect((JSON.parse(out) as { file: string }).file).toBe(`feedback_${HOSTILE}.md`);
  });
});
