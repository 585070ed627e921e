// Session 41 review of the model-backed commands (recall, extract, dream) as the real `memdir`
// process meets a misbehaving model endpoint (the fake Anthropic server) and a real Ctrl-C while it
// waits on the model.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, type FakeReply, startFakeAnthropic } from '../main/llm/test-support/fake-anthropic.js';
import { type ExtractFixture, createExtractFixture, operationsReply } from '../main/extract/test-support/extract-fixture.js';
import { updateAppSettings } from '../main/settings/app-settings.js';
import { mountSmallDisk, smallDiskUnavailable } from '../main/core/test-support/small-disk.js';
import { CONSOLIDATION_LOCK_FILE } from '../main/dream/lock-content.js';
import { topic } from '../main/dream/test-support/dream-fixture.js';

const MEMDIR = path.join(import.meta.dirname, 'memdir.ts');
const KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-not-real';
let fx: ExtractFixture;
let fake: FakeAnthropic;

beforeEach(async () => {
  fx = await createExtractFixture('memdir-model-cli-');
  fake = await startFakeAnthropic({ fallback: { kind: 'hang' } });
  // A model that hangs is given up on after a minute (the default): a Ctrl-C must not wait that long.
  await updateAppSettings(fx.dataDir, { model: { maxRetries: 0, timeoutMs: 60_000 } });
});
afterEach(async () => {
  await fake.close();
  await fx.cleanup();
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  ms: number;
}

/**
 * The real memdir; with `ctrlC`, a real SIGINT once the model has been asked (and left hanging);
 * `drive` is given the child and its stderr so far, to act on it while it runs.
 */
function memdir(args: string[], ctrlC = false, extraEnv: NodeJS.ProcessEnv = {}, drive?: (child: ChildProcess, err: () => string) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CLAUDE_CONFIG_DIR: fx.home,
      MEMDIR_DATA_DIR: fx.dataDir,
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: fake.url,
      NO_COLOR: '1',
      ...extraEnv,
    };
    delete env.MEMDIR_DEBUG;
    const child = spawn(process.execPath, ['--import', 'tsx', MEMDIR, ...args], { env, cwd: path.resolve(import.meta.dirname, '../..') });
    let out = '';
    let err = '';
    let asked = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', reject);
    drive?.(child, () => err);
    const before = fake.messageRequests().length;
    const poll = ctrlC
      ? setInterval(() => {
          if (fake.messageRequests().length > before && asked === 0) {
            asked = Date.now();
            child.kill('SIGINT');
          }
        }, 20)
      : undefined;
    child.once('exit', (code, signal) => {
      clearInterval(poll);
      setImmediate(() => resolve({ code, signal, out, err, ms: asked ? Date.now() - asked : 0 }));
    });
  });
}

async function newTurn(text: string): Promise<void> {
  const t = fx.builder();
  t.prompt(text).assistant('ok', { stopReason: 'end_turn' });
  await fs.appendFile(fx.transcript(), t.take());
}

describe('Ctrl-C while a model-backed command waits on the model', () => {
  it('extract stops at once (not after the model gives up), says what it kept, and the turn stays new for the next run', async () => {
    await newTurn('Remember: never mock the database.');
    const run = await memdir(['extract', '--project', fx.cwd], true);
    expect(run.code).toBe(130);
    expect(run.out).toBe('');
    // Not "finishing the write under way": the model's answer is no write, and nothing is waited for.
    expect(run.err).not.toContain('finishing the write');
    expect(run.err).toBe(
      'memdir extract: stopped (Ctrl-C). No write was under way: nothing is half-written. The turns done before it are kept (written or queued); the turns the model was deciding stay new: the next `memdir extract` takes them up.\n',
    );
    expect(run.ms).toBeLessThan(15_000);

    // What it said: the turn is still new, and the next run (the model answering now) takes it up.
    fake.enqueue(operationsReply({ action: 'create', file: 'feedback_db.md', type: 'feedback', name: 'Real DB', description: 'No mocks', body: 'x\n' }));
    const again = await memdir(['extract', '--project', fx.cwd, '--json']);
    expect(again.code).toBe(0);
    const json = JSON.parse(again.out) as { turns: { skipped: boolean; operations?: { file: string; disposition: string }[] }[] };
    expect(json.turns).toEqual([
      expect.objectContaining({ skipped: false, operations: [expect.objectContaining({ file: 'feedback_db.md', disposition: 'queued' })] }),
    ]);
  });

  it('recall stops at once and says the recall was not made (nothing is written by it)', async () => {
    const run = await memdir(['recall', '--project', fx.cwd, '--query', 'sql orm', '--json'], true);
    expect(run).toMatchObject({
      code: 130,
      out: '',
      err: 'memdir recall: stopped (Ctrl-C). No write was under way: nothing is half-written. The recall was not made (a recall writes nothing).\n',
    });
  });

  it('a dream cut while the model consolidates changes nothing and rolls its lock back; it says so', async () => {
    const before = await snapshot(fx.memoryDir);
    const run = await memdir(['dream', '--force', '--project', fx.cwd, '--json'], true);
    // Exit 130, as every command stopped by Ctrl-C: a script tells a stop from a failure (exit 1).
    expect(run.code).toBe(130);
    const json = JSON.parse(run.out) as { status: string; changed: unknown[]; rev: unknown; error: string };
    expect(json).toMatchObject({ status: 'cancelled', changed: [], rev: null });
    expect(json.error).toContain('SIGINT');
    expect(run.err).toBe(`${HEARD}memdir dream: stopped (Ctrl-C). The dream was cancelled before it changed anything: its lock is rolled back.\n`);
    expect(await snapshot(fx.memoryDir)).toEqual(before);
    // The lock is rolled back: the project was never consolidated, so a dream may start again at once.
    const status = await memdir(['dream', 'status', '--project', fx.cwd, '--json']);
    expect((JSON.parse(status.out) as { lastConsolidatedAt: unknown }).lastConsolidatedAt).toBeNull();
  });
});

/** What `memdir dream` says the moment it hears Ctrl-C. */
const HEARD =
  'memdir dream: Ctrl-C: cancelling the dream where it safely can (changes already being applied are finished whole) (Ctrl-C again stops at once).\n';

/** Resolves once `check` is true, looked at every 20 ms (what it waits for is a state, not a time). */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a thread of process `pid` is blocked opening a FIFO no one writes to yet (Linux: its wchan). */
function waitsOnFifo(pid: number): boolean {
  try {
    return fsSync.readdirSync(`/proc/${pid}/task`).some((tid) => fsSync.readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').includes('wait_for_partner'));
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== 'linux')('Ctrl-C before the dream began (while its gates are checked)', () => {
  it('exits 130 like every command stopped so, says nothing was changed, and leaves no lock', async () => {
    const before = await snapshot(fx.memoryDir);
    // The lock gate reads the consolidation lock: a FIFO in its place holds the gate check exactly
    // there (opening it waits for a writer) until this test opens it — after the Ctrl-C was heard.
    const lock = path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE);
    execFileSync('mkfifo', [lock]);
    const run = await memdir(['dream', '--force', '--project', fx.cwd], false, {}, (child, err) => {
      void (async () => {
        await until(() => waitsOnFifo(child.pid!), 'the gate check to open the lock');
        child.kill('SIGINT');
        await until(() => err().includes(HEARD), 'memdir to hear Ctrl-C');
        // Let the gate go on: the FIFO is no lock file, so the lock gate says no and the dream never begins.
        const writer = await fs.open(lock, 'w');
        await writer.close();
      })();
    });
    expect(run.signal).toBeNull();
    expect(run.code, run.err).toBe(130);
    expect(run.out).toBe('');
    expect(run.err).toBe(`${HEARD}memdir dream: stopped (Ctrl-C). The dream had not begun: nothing was changed.\n`);
    expect(fake.messageRequests()).toEqual([]);
    await fs.rm(lock);
    expect(await snapshot(fx.memoryDir)).toEqual(before);
  });
});

describe('one exit code for what a model-backed command could not do', () => {
  it('extract exits 1 when every turn failed at the model (the JSON says which, and its shape stays); the turns stay new', async () => {
    fake.setHandler(() => ({ kind: 'error', status: 500 }));
    await newTurn('Remember: never mock the database.');
    const run = await memdir(['extract', '--project', fx.cwd, '--json']);
    expect(run.code, run.err).toBe(1);
    const json = JSON.parse(run.out) as { turns: { skipped: boolean; reason?: string }[]; transcripts: { pending: boolean }[] };
    expect(json.turns).toEqual([expect.objectContaining({ skipped: true, reason: 'model-failed' })]);
    expect(json.transcripts).toEqual([expect.objectContaining({ pending: true })]);
    // The text says it too, in its last line: nothing was extracted, and what to do.
    const text = await memdir(['extract', '--project', fx.cwd]);
    expect(text.code).toBe(1);
    expect(text.out.trimEnd().split('\n').at(-1)).toMatch(/^Nothing extracted: the model failed on every turn it was asked about/);
  });

  it('extract exits 0 when some turns were done and others failed at the model (partial: the rest is retried by the next run)', async () => {
    await newTurn('Remember: never mock the database.');
    const other = fx.builder('22222222-2222-4222-8222-222222222222');
    other.prompt('Remember: tabs, not spaces.').assistant('ok', { stopReason: 'end_turn' });
    await fs.appendFile(fx.transcript('22222222-2222-4222-8222-222222222222'), other.take());
    let asked = 0;
    fake.setHandler(() => (asked++ === 0 ? operationsReply() : { kind: 'error', status: 500 }));
    const run = await memdir(['extract', '--project', fx.cwd, '--json']);
    expect(run.code, run.err).toBe(0);
    const json = JSON.parse(run.out) as { turns: { skipped: boolean; reason?: string }[] };
    expect(json.turns.map((t) => t.reason ?? 'done').sort()).toEqual(['done', 'model-failed']);
  });
});

describe("the terminal names its own way to fix a model's failure, never the app's", () => {
  // What only the app has (a Settings field, a tab, a click) is not how a terminal does it.
  const APP_WORDS = /in Settings|Settings →|Dream tab|in one click/;

  it('a model that took too long: allow more time is the setting in settings.json, named by its key', async () => {
    await updateAppSettings(fx.dataDir, { recall: { timeoutMs: 1_000 } });
    const run = await memdir(['recall', '--project', fx.cwd, '--query', 'sql orm', '--json']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('did not answer within 1.0 s');
    expect(run.out).toContain("allow more time (model.timeoutMs, or recall.timeoutMs for a recall, in Memdir's settings.json)");
    expect(run.out + run.err).not.toMatch(APP_WORDS);
  });

  it('a refused key is checked in ANTHROPIC_API_KEY; an API chosen without a key is set there too', async () => {
    fake.setHandler(() => ({ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' }));
    await newTurn('Remember: never mock the database.');
    const refused = await memdir(['extract', '--project', fx.cwd, '--dry-run']);
    expect(refused.out).toContain("Check ANTHROPIC_API_KEY (or the key saved in the app's Settings).");
    expect(refused.out + refused.err).not.toMatch(APP_WORDS);

    await updateAppSettings(fx.dataDir, { model: { provider: 'anthropic' } });
    const noKey = await memdir(['recall', '--project', fx.cwd, '--query', 'sql orm', '--json'], false, { ANTHROPIC_API_KEY: '' });
    expect(noKey.out).toContain(
      "The Anthropic API is chosen in Memdir's settings (model.provider in settings.json) but no API key is set: set ANTHROPIC_API_KEY",
    );
    expect(noKey.out + noKey.err).not.toMatch(APP_WORDS);
  });
});

describe('a dream that could not be done exits 1; a model that failed alone does not fail it', () => {
  const DUP = topic(
    { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback' },
    `Mocks hid a migration bug. ${'x'.repeat(6000)}`,
  );
  async function duplicates(): Promise<void> {
    await fs.writeFile(path.join(fx.memoryDir, 'feedback_db.md'), DUP);
    await fs.writeFile(path.join(fx.memoryDir, 'feedback_db_copy.md'), DUP);
    await fs.writeFile(
      path.join(fx.memoryDir, 'MEMORY.md'),
      '- [Real database in tests](feedback_db.md) — Do not mock the database\n- [Copy](feedback_db_copy.md) — Do not mock the database\n',
    );
  }

  it('the model answering 500: the offline rules consolidate instead, and the dream is done (exit 0, "method": "rules", the reason given)', async () => {
    await duplicates();
    fake.setHandler(() => ({ kind: 'error', status: 500 }));
    const run = await memdir(['dream', '--force', '--allow-deletes', '--project', fx.cwd, '--json']);
    expect(run.code, run.err).toBe(0);
    const json = JSON.parse(run.out) as { status: string; method: string; fallbackReason: string | null };
    expect(json).toMatchObject({ status: 'completed', method: 'rules', fallbackReason: expect.any(String) });
    expect(fake.messageRequests().length).toBeGreaterThan(0);
  });

  it.skipIf(smallDiskUnavailable !== null)(
    'its writes refused by a full disk: "failed" with the reason in words, exit 1 (JSON and text alike), nothing changed',
    async () => {
      const disk = mountSmallDisk(fx.memoryDir, 4 * 1024 * 1024);
      try {
        await duplicates();
        const before = await snapshot(fx.memoryDir);
        // The model is asked once the dream holds its lock: the disk fills up then, and the model fails,
        // so the offline rules plan the merge and its writes meet the full disk.
        fake.setHandler(() => {
          disk.leaveFree(0);
          return { kind: 'error', status: 500 };
        });
        const run = await memdir(['dream', '--force', '--allow-deletes', '--project', fx.cwd, '--json']);
        expect(run.code, run.err).toBe(1);
        const json = JSON.parse(run.out) as { status: string; rev: unknown; error: string };
        expect(json).toMatchObject({ status: 'failed', rev: null, error: expect.any(String) });
        expect(run.out + run.err).not.toMatch(/ENOSPC|EROFS|Error:|at .*\.[jt]s:\d+/);
        disk.free();
        expect(await snapshot(fx.memoryDir)).toEqual(before);

        fake.setHandler(() => {
          disk.leaveFree(0);
          return { kind: 'error', status: 500 };
        });
        const text = await memdir(['dream', '--force', '--allow-deletes', '--project', fx.cwd]);
        expect(text.code, text.err).toBe(1);
        expect(text.out + text.err).not.toMatch(/ENOSPC|Error:|at .*\.[jt]s:\d+/);
        disk.free();
        expect(await snapshot(fx.memoryDir)).toEqual(before);
      } finally {
        disk.unmount();
      }
    },
  );
});

/** Every file of a folder (the consolidation lock aside), by name, with its bytes. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await fs.readdir(dir)).sort()) if (!name.startsWith('.')) files[name] = await fs.readFile(path.join(dir, name), 'utf8');
  return files;
}

// The last field: extract's exit. A failure worth retrying leaves the turn new (exit 1: nothing extracted);
// one that is not (a refused key, an answer that is no answer) has the offline rules do the turn (exit 0).
const failures: [string, FakeReply, number][] = [
  ['a refused key (401)', { kind: 'error', status: 401, type: 'authentication_error', message: `invalid x-api-key ${KEY}` }, 0],
  ['rate limited (429, retry-after)', { kind: 'error', status: 429, retryAfterMs: 1 }, 1],
  ['a server error (500)', { kind: 'error', status: 500 }, 1],
  ['a body cut mid-way', { kind: 'message', text: 'x'.repeat(500), cutAfterBytes: 40 }, 1],
  ['an HTML page with 200', { kind: 'malformed', body: '<html><body>Bad gateway</body></html>', contentType: 'text/html' }, 0],
];

describe('a misbehaving endpoint: a sentence, valid JSON, exit 0 with the fallback (extract: 1 when the turn is left for a retry), never the key', () => {
  it.each(failures)('%s', async (_what, reply, extractExit) => {
    fake.setHandler(() => reply);
    await newTurn('Remember: never mock the database.');
    const runs = [
      await memdir(['recall', '--project', fx.cwd, '--query', 'sql orm', '--json']),
      await memdir(['extract', '--project', fx.cwd, '--dry-run', '--json']),
      await memdir(['dream', '--force', '--dry-run', '--project', fx.cwd, '--json']),
    ];
    for (const [i, run] of runs.entries()) {
      expect(run.code, run.err).toBe(i === 1 ? extractExit : 0);
      expect(() => JSON.parse(run.out) as unknown).not.toThrow();
      expect(run.out + run.err).not.toContain('AbCdEfGh');
      expect(run.out + run.err).not.toMatch(/ECONNRESET|ECONNREFUSED|SyntaxError|Unexpected token|at .*\.ts:\d+/);
    }
  });
});
