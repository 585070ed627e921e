/**
 * Issue 17, item 3: one error model. Every declared code is thrown through the app's dispatcher
 * and through the CLI and must come out as src/shared/errors.ts's table says; every error class in
 * src/main, src/cli, src/server and src/shared must be a MemdirError with a sample here, so an error added without a
 * mapping (or a class nobody listed) fails this file.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_ERROR, ERROR_TABLE, MemdirError, type MemdirErrorCode } from '../../shared/errors.js';
import { AppContext } from '../app/app-context.js';
import { type Handlers, type Subscribers, createDispatcher } from '../api/dispatch.js';
import { createAppDispatcher } from '../api/index.js';
import { CONTRACT } from '../../shared/contract/index.js';
import { buildFixtureHome } from '../memdir/test-support/fixture-home.js';
import { runCli } from '../../cli/main.js';
import { CliFailure, type CliIo, type CommandSpec, EXIT_CODES_HELP, UsageError } from '../../cli/command.js';
import { TranscriptNotFoundError } from '../recall/recall-service.js';
import { SelectionError } from '../recall/find-relevant-memories.js';
import { type JobBusyError, JobRunner } from '../jobs/job-runner.js';
import { EventBus } from './event-bus.js';
import { TarError } from '../relink/tar.js';
import { HistoryError, type HistoryErrorReason } from '../history/git.js';
import { TeamConfigError } from '../team/connections.js';
import { StoreError } from '../../server/store.js';
import { AlertError } from '../team/alert-center.js';
import { TeamPathError } from '../team/team-paths.js';
import { TeamClientError, type TeamClientErrorCode } from '../team/team-client.js';
import { TeamSyncError, type TeamSyncErrorCode } from '../team/sync/engine.js';
import { MemoryFileError, UnsafePathError } from './confined-path.js';
import { UnreadableMemoryError } from '../memdir/read-memory-file.js';
import { MemoryLockError } from './lock.js';
import { MemoryError, type MemoryErrorCode } from '../memdir/memory-error.js';
import { ProjectNotFoundError } from '../memdir/projects.js';
import { DirectoryError, type DirectoryErrorReason } from '../memdir/canonical-key.js';
import { ExtractAnswerError } from '../extract/extract-prompt.js';
import { ExtractBusyError, ExtractInputError } from '../extract/extract-memories.js';
import { ExtractPartlySavedError } from '../extract/extraction-run.js';
import { CursorConsumerError } from '../transcripts/cursor-store.js';
import { LlmError } from '../llm/types.js';
import { DreamCancelledError, DreamError, DreamLockLostError } from '../dream/index.js';
import { CredentialError } from '../settings/credentials.js';
import { JsoncSyntaxError } from '../settings/jsonc-edit.js';
import { SettingsFileError } from '../settings/claude-settings-file.js';
import { PersonalKeyError } from '../personal/personal-crypto.js';
import { PersonalSyncError } from '../personal/personal-account.js';
import { CommandInstallError } from '../desktop/install-command.js';
import { SecretFoundError } from '../secrets/save-guard.js';

const SRC = path.resolve(import.meta.dirname, '../..');

/** Each union written out: a code added to one of them and not here fails to type-check. */
const keys = <K extends string>(record: Record<K, true>): K[] => Object.keys(record) as K[];
const TEAM_CLIENT_CODES = keys<TeamClientErrorCode>({
  network: true,
  timeout: true,
  cancelled: true,
  unauthorized: true,
  revoked: true,
  'not-found': true,
  'rate-limited': true,
  unavailable: true,
  'too-large': true,
  'bad-response': true,
  redirect: true,
  server: true,
});
const TEAM_SYNC_CODES = keys<Exclude<TeamSyncErrorCode, TeamClientErrorCode>>({
  busy: true,
  conflict: true,
  'invalid-input': true,
  stale: true,
  'team-full': true,
  'key-mismatch': true,
});
const MEMORY_CODES = keys<MemoryErrorCode>({
  exists: true,
  'not-found': true,
  conflict: true,
  'invalid-name': true,
  'scope-refused': true,
  'invalid-input': true,
  'unsafe-path': true,
  busy: true,
});
const HISTORY_REASONS = keys<HistoryErrorReason>({
  'bad-revision': true,
  'bad-path': true,
  'bad-argument': true,
  'not-found': true,
  'git-missing': true,
  'git-failed': true,
  'disk-refused': true,
});
const FILE_REASONS = keys<MemoryFileError['reason']>({ exists: true, missing: true, 'not-a-file': true, permission: true, io: true });
const DIRECTORY_REASONS = keys<DirectoryErrorReason>({ missing: true, 'not-a-directory': true, unreadable: true });
const PERSONAL_CODES = keys<PersonalSyncError['code']>({
  'not-connected': true,
  'needs-acknowledgement': true,
  'not-personal': true,
  'no-identity': true,
  'no-key': true,
  'wrong-passphrase': true,
  'weak-passphrase': true,
  'bad-record': true,
});

function jobBusy(): JobBusyError {
  const runner = new JobRunner(new EventBus());
  let release = () => {};
  runner.start({ kind: 'extract', title: 'Extraction of /work/shop', key: 'extract:/work/shop' }, () => new Promise<void>((r) => (release = r)));
  try {
    runner.start({ kind: 'extract', title: 'Extraction of /work/shop', key: 'extract:/work/shop' }, async () => undefined);
  } catch (error) {
    return error as JobBusyError;
  } finally {
    release();
  }
  throw new Error('a second job with the same key was not refused');
}

/** Every error class of src/main, src/cli, src/server and src/shared, as it is thrown, in each of its codes. */
const SAMPLES: Record<string, () => MemdirError[]> = {
  MemdirError: () => (Object.keys(ERROR_TABLE) as MemdirErrorCode[]).map((code) => new MemdirError(code, `A refusal whose code is ${code}.`)),
  UsageError: () => [new UsageError('--limit needs a value')],
  CliFailure: () => [new CliFailure('cannot read notes.md')],
  TranscriptNotFoundError: () => [new TranscriptNotFoundError('5f1c2a')],
  SelectionError: () => [new SelectionError('The model gave an empty answer.')],
  JobBusyError: () => [jobBusy()],
  TarError: () => [new TarError('The archive ends in the middle of a file.')],
  HistoryError: () => HISTORY_REASONS.map((reason) => new HistoryError(reason, `History refused (${reason}).`)),
  StoreError: () => [
    new StoreError('exists', 'A team named "platform" already exists.'),
    new StoreError('not-found', 'No team is named "platform".'),
    new StoreError('invalid-input', 'A member name is 1 to 64 printable characters.'),
  ],
  TeamConfigError: () => [new TeamConfigError('"ftp://x" is not a URL; give the sync server\'s address, e.g. https://memdir.example.com')],
  AlertError: () => (['not-found', 'invalid-input', 'conflict'] as const).map((code) => new AlertError(code, `That alert cannot be changed (${code}).`)),
  TeamPathError: () => [new TeamPathError('symlink', 'team/a.md', 'Refused to sync team/a.md: it is a symbolic link.')],
  TeamClientError: () => TEAM_CLIENT_CODES.map((code) => new TeamClientError(code, `The sync server failed (${code}).`)),
  TeamSyncError: () => [...TEAM_CLIENT_CODES, ...TEAM_SYNC_CODES].map((code) => new TeamSyncError(code, `The sync stopped (${code}).`)),
  UnsafePathError: () => [new UnsafePathError('outside', '../x.md', 'Refused to write ../x.md: it leaves the memory directory')],
  MemoryFileError: () => FILE_REASONS.map((reason) => new MemoryFileError(reason, 'a.md', `Cannot write a.md (${reason})`)),
  UnreadableMemoryError: () => [new UnreadableMemoryError('a.md', 'a.md cannot be opened: it is not valid UTF-8 text (saved in another encoding?).')],
  MemoryLockError: () => [
    new MemoryLockError('busy', 'Another Memdir process is changing this memory directory; try again in a moment.'),
    new MemoryLockError('compromised', 'The memory directory lock was taken away while held; nothing more was written.'),
  ],
  MemoryError: () =>
    MEMORY_CODES.map((code) => new MemoryError(code, `The memory was not changed (${code}).`, code === 'conflict' ? 'on disk now\n' : undefined)),
  ProjectNotFoundError: () => [new ProjectNotFoundError('nowhere', '/home/me/.claude')],
  DirectoryError: () => DIRECTORY_REASONS.map((reason) => new DirectoryError('/work/shop', reason, 'EACCES')),
  ExtractAnswerError: () => [new ExtractAnswerError('The model gave an empty answer.')],
  ExtractBusyError: () => [new ExtractBusyError('Another run is extracting from this transcript.')],
  ExtractPartlySavedError: () => [
    new ExtractPartlySavedError(
      'Created feedback_db.md, but Memdir could not save where extraction got to: the disk is full. Nothing is lost: the next extraction completes it.',
      [],
      '-home-me-app',
      '/home/me/.claude/projects/-home-me-app/memory',
      new Error('ENOSPC'),
    ),
  ],
  ExtractInputError: () => [new ExtractInputError('That file is not a transcript of this home.')],
  CursorConsumerError: () => [new CursorConsumerError('"A B" is not a valid cursor consumer name (use a-z, 0-9, ".", "_", "-")')],
  LlmError: () => [new LlmError('rate-limited', 'The model is rate limited; try again in a minute.')],
  DreamError: () => (['not-found', 'conflict', 'busy', 'invalid-input'] as const).map((code) => new DreamError(code, `The dream cannot go on (${code}).`)),
  DreamCancelledError: () => [new DreamCancelledError('The dream was cancelled.')],
  DreamLockLostError: () => [new DreamLockLostError('Claude Code took the consolidation lock over while the dream ran.')],
  CredentialError: () => [new CredentialError('"a b" is not a valid credential name (letters, digits, dot, dash, underscore).')],
  JsoncSyntaxError: () => [new JsoncSyntaxError('settings.json has a syntax error on line 3.')],
  SettingsFileError: () => [
    new SettingsFileError('invalid-file', 'settings.json cannot be changed safely.'),
    new SettingsFileError('conflict', 'settings.json changed since the change was shown; look at it again before applying.'),
  ],
  PersonalKeyError: () =>
    (['wrong-passphrase', 'bad-record', 'weak-passphrase'] as const).map((code) => new PersonalKeyError(code, `The key cannot be used (${code}).`)),
  PersonalSyncError: () => PERSONAL_CODES.map((code) => new PersonalSyncError(code, `Personal sync refused (${code}).`)),
  SecretFoundError: () => [
    new SecretFoundError(
      'Nothing was saved: a.md would hold a GitHub token (ghp_************) at line 3 [fingerprint 0123456789abcdef], and Claude Code sends every memory to the model in every session, so it would leave this machine.',
      [{ title: 'GitHub token', match: 'ghp_************', line: 3, fingerprint: '0123456789abcdef' }],
      'Remove it, or save anyway on purpose by allowing its fingerprint.',
    ),
  ],
  CommandInstallError: () =>
    (['unavailable', 'exists', 'io-failed'] as const).map((code) => new CommandInstallError(code, `The memdir command was not installed (${code}).`)),
};

/**
 * Classes that extend Error but are not MemdirErrors, and why: each never leaves its module
 * (caught where it is thrown).
 */
const NOT_MEMDIR_ERRORS: Record<string, string> = {
  ToolError: 'dream/model/model-consolidate.ts: answered to the model as a tool result, never thrown out',
  NeedsConfirmation: 'dream/run-dream.ts: caught by runDream, which returns a needs-confirmation record',
  RpcError: 'shared/contract/define.ts: the transport error itself, what the dispatcher turns a MemdirError into through the table',
  LockFault: 'dream/lock-content.ts: caught by the dream lock (consolidation-lock.ts, lock-recovery.ts) and returned as a DreamLockProblem',
  NotAnAnswer: "llm/anthropic-provider.ts: thrown and caught inside complete(), whose classify turns it into an LlmError ('bad-response')",
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.includes('test-support'));
}

/** Every `class X extends Y` of src/main, src/cli, src/server and src/shared whose ancestry reaches Error: name → parent. */
function errorClasses(): Map<string, string> {
  const parents = new Map<string, string>();
  for (const top of ['main', 'cli', 'server', 'shared']) {
    for (const file of sourceFiles(path.join(SRC, top))) {
      const text = fs.readFileSync(path.join(SRC, top, file), 'utf8');
      for (const m of text.matchAll(/\bclass (\w+)(?:<[^{]*?>)? extends (\w+)/g)) parents.set(m[1]!, m[2]!);
    }
  }
  const reachesError = (name: string, seen = new Set<string>()): boolean => {
    if (name === 'Error') return true;
    const parent = parents.get(name);
    return parent !== undefined && !seen.has(name) && (seen.add(name), reachesError(parent, seen));
  };
  return new Map([...parents].filter(([name]) => reachesError(name)));
}

function cliIo(): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, cwd: os.tmpdir() }, out, err };
}

/** A command that throws `error`, run by the real `memdir` entry. */
async function throughCli(error: unknown): Promise<{ exit: number; lines: string[] }> {
  const spec: CommandSpec = {
    name: ['boom'],
    summary: 'Throws.',
    args: [],
    options: {},
    run: async () => {
      throw error;
    },
  };
  const { io, err } = cliIo();
  const exit = await runCli(['boom'], io, [spec]);
  return { exit, lines: err.join('').split('\n').slice(0, -1) };
}

let root: string;
let ctx: AppContext;
const logged: { call: string; error: unknown }[] = [];

/** A real dispatcher over a real app context whose every handler throws `error`. */
async function throughDispatcher(error: unknown) {
  const handlers = new Proxy({} as Handlers, {
    get: () => async () => {
      throw error;
    },
  });
  const dispatcher = createDispatcher(ctx, CONTRACT, handlers, {} as Subscribers, { logInternal: (call, e) => logged.push({ call, error: e }) });
  return dispatcher.call('app.info', {});
}

beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), 'memdir-errors-'));
  const fixture = await buildFixtureHome(root);
  ctx = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data'), env: {} });
});
afterAll(async () => {
  await ctx.close();
  await fsp.rm(root, { recursive: true, force: true });
});

describe('the error table', () => {
  it('knows every error class: each is a MemdirError with samples here, or a listed private one', () => {
    const classes = errorClasses();
    expect(classes.size).toBeGreaterThan(30);
    for (const [name] of classes) {
      if (Object.hasOwn(NOT_MEMDIR_ERRORS, name)) continue;
      expect(Object.hasOwn(SAMPLES, name), `${name} extends Error but has no sample in errors.test.ts (and so no proven mapping)`).toBe(true);
    }
    for (const [name, make] of Object.entries(SAMPLES)) {
      const samples = make();
      expect(samples.length, name).toBeGreaterThan(0);
      for (const sample of samples) {
        expect(sample, name).toBeInstanceOf(MemdirError);
        expect(sample.name, 'a class keeps its name').toBe(name);
        expect(Object.hasOwn(ERROR_TABLE, sample.code), `${name} throws code "${sample.code}", which the table does not map`).toBe(true);
      }
    }
  });

  it('has no unused code: every code in the table is thrown by some class other than the base', () => {
    const thrown = new Set(
      Object.entries(SAMPLES)
        .filter(([name]) => name !== 'MemdirError')
        .flatMap(([, make]) => make().map((e) => e.code)),
    );
    expect((Object.keys(ERROR_TABLE) as MemdirErrorCode[]).filter((code) => !thrown.has(code))).toEqual([]);
  });

  it('sends every sample through the dispatcher as the table says: its code, its words, nothing internal', async () => {
    for (const [name, make] of Object.entries(SAMPLES)) {
      for (const error of make()) {
        logged.length = 0;
        const result = await throughDispatcher(error);
        const mapping = ERROR_TABLE[error.code];
        expect(result, `${name} ${error.code}`).toMatchObject({ ok: false, error: { code: mapping.rpc, message: error.message } });
        const shape = (result as { error: Record<string, unknown> }).error;
        expect(JSON.stringify(shape)).not.toContain('    at ');
        expect(JSON.stringify(shape)).not.toContain(name === 'MemdirError' ? 'MemdirError' : `${name}:`);
        // Only Memdir's own failures are logged as bugs.
        expect(logged.length, `${name} ${error.code} logged`).toBe(mapping.rpc === 'internal' ? 1 : 0);
      }
    }
  });

  it('prints every sample in the CLI as the table says: its exit code and one line, no stack, no class name', async () => {
    for (const [name, make] of Object.entries(SAMPLES)) {
      for (const error of make()) {
        const { exit, lines } = await throughCli(error);
        const mapping = ERROR_TABLE[error.code];
        expect(exit, `${name} ${error.code}`).toBe(mapping.exit);
        expect(lines, `${name} ${error.code}`).toEqual([
          // A message that ends its own sentence gets no second full stop ("usage.." before session 40).
          mapping.print === 'usage' ? `memdir boom: ${error.message.replace(/(?<![.?!])$/, '.')} Run \`memdir boom --help\`.` : `memdir boom: ${error.message}`,
          // A hint (what to do about it) is the line after.
          ...(error.hint ? [`memdir boom: ${error.hint}`] : []),
        ]);
        if (name !== 'MemdirError') expect(lines[0]).not.toContain(name);
      }
    }
  });

  it('carries a hint to both edges: a field in the app, a second line in the CLI', async () => {
    const error = new PersonalSyncError('needs-acknowledgement', 'This personal space has no passphrase yet.', { hint: 'Run again with --yes.' });
    expect(await throughDispatcher(error)).toEqual({
      ok: false,
      error: { code: 'invalid-input', message: 'This personal space has no passphrase yet.', hint: 'Run again with --yes.' },
    });
    expect(await throughCli(error)).toEqual({
      exit: 2,
      lines: ['memdir boom: This personal space has no passphrase yet.', 'memdir boom: Run again with --yes.'],
    });
  });

  it('keeps what is on disk with a conflict, so the editor shows both versions', async () => {
    const result = await throughDispatcher(new MemoryError('conflict', 'notes.md changed on disk.', 'theirs\n'));
    expect(result).toEqual({ ok: false, error: { code: 'conflict', message: 'notes.md changed on disk.', current: 'theirs\n' } });
  });

  it('turns an error that is not a MemdirError into "internal" with one line shown and the whole logged', async () => {
    logged.length = 0;
    const bug = new TypeError("Cannot read properties of undefined (reading 'memoryDir')\n    at somewhere (file.ts:1:1)");
    const result = await throughDispatcher(bug);
    expect(result).toEqual({
      ok: false,
      error: { code: 'internal', message: "Something went wrong: Cannot read properties of undefined (reading 'memoryDir')" },
    });
    expect(logged).toEqual([{ call: 'app.info', error: bug }]);
    expect(await throughCli(bug)).toEqual({ exit: EXIT_ERROR, lines: ["memdir boom: Cannot read properties of undefined (reading 'memoryDir')"] });
  });

  it('says in README and --help the exit codes the table uses', async () => {
    const readme = fs.readFileSync(path.join(SRC, '..', 'README.md'), 'utf8');
    // One contract, one wording: README quotes `memdir --help`'s word for word (its lines wrapped its own way).
    const words = (text: string) => text.replace(/\*\*/g, '').replace(/\s+/g, ' ');
    expect(words(readme)).toContain(words(EXIT_CODES_HELP));
    for (const { exit } of Object.values(ERROR_TABLE)) expect(words(EXIT_CODES_HELP)).toContain(`; ${exit} usage, bad input or an I/O error`);
    const { io, out } = cliIo();
    await runCli(['--help'], io, []);
    expect(out.join('')).toContain(EXIT_CODES_HELP);
  });
});

describe('errors the app met as "internal" before one table', () => {
  it('a revision that is not one is refused as bad input, in words', async () => {
    const api = createAppDispatcher(ctx);
    const memoryDir = path.join(ctx.home, 'projects', '-work-shop', 'memory');
    const fields = { name: 'Deploys', description: 'How deploys go', type: 'project' };
    expect(await api.call('memories.create', { dir: '-work-shop', memoryDir, fields, body: 'Friday is frozen.\n', file: 'deploys.md' })).toMatchObject({
      ok: true,
    });
    const result = await api.call('history.read', { dir: '-work-shop', rev: 'not-a-revision', file: 'a.md' });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input', message: expect.stringContaining('not-a-revision') } });
  });
});
