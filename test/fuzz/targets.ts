/**
 * Fuzz targets (issue 15): every parser that reads data from outside Memdir — topic-file
 * frontmatter, MEMORY.md index lines, transcript JSONL, hook payloads, the sync protocol (the
 * server reading a push, the client reading a server's answers) and settings files — driven by
 * fast-check with inputs that are mostly almost right (the shapes real files and peers have,
 * with hostile values) and partly plain noise (those inputs are in `test/fuzz/inputs.ts`).
 *
 * The property is the same for every one: the parser never throws, and what it says is either
 * an accepted value of the right shape or a rejection a person can read — one sentence, no
 * stack trace, no validator dump, no "[object Object]". `test/fuzz/fuzz.test.ts` runs a quick
 * round of each in `npm test`; `npm run bench fuzz` runs at least 10,000 cases of each.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { parseHookPayload } from '../../src/main/hook-spool/index.js';
import { readEffectiveSettings } from '../../src/main/memdir/settings.js';
import { parseTopicFile } from '../../src/main/memdir/topic-file.js';
import { headOf, readHeadFrontmatter } from '../../src/main/recall/claude-code/scan-memories.js';
import { openFailure } from '../../src/main/personal/encrypted-client.js';
import { PersonalKeyError, PersonalKeys, createKey, parseKeyRecord } from '../../src/main/personal/personal-crypto.js';
import { parseAppSettings } from '../../src/main/settings/app-settings.js';
import { TeamClient, TeamClientError } from '../../src/main/team/team-client.js';
import { parseTranscriptLine } from '../../src/main/transcripts/records.js';
import type { TranscriptEvent } from '../../src/main/transcripts/transcript-reader.js';
import { TurnAssembler } from '../../src/main/transcripts/turn-assembler.js';
import { createApp } from '../../src/server/app.js';
import { createTeam, issueToken } from '../../src/server/admin.js';
import { errorResponseSchema } from '../../src/shared/protocol/sync.js';
import { openSqliteStore } from '../../src/server/sqlite-store.js';
import { parseIndex, serializeIndex } from '../../src/shared/index-format.js';
import { loadIndexAsClaudeCode } from '../../src/shared/index-load.js';
import {
  type PersonalInput,
  type ServerAnswer,
  frontmatterText,
  hookInput,
  indexText,
  personalInput,
  putBody,
  serverAnswer,
  settingsText,
  transcriptLines,
} from './inputs.js';

/** What a parser said about one input. */
export type Verdict = { accepted: true } | { accepted: false; message: string };

/** One parser under fuzz: how to make inputs, and how to run it on one (set up once per run). */
export interface FuzzTarget<T = unknown> {
  name: string;
  /** What it reads, for the report. */
  reads: string;
  arbitrary: fc.Arbitrary<T>;
  setup(): Promise<{ run(input: T): Promise<Verdict>; close(): Promise<void> }>;
}

/** Why `message` is not a rejection a person can read, or null when it is. */
export function unclear(message: unknown): string | null {
  if (typeof message !== 'string') return `the rejection is a ${typeof message}, not a sentence`;
  if (message.trim().length < 8) return `the rejection "${message}" says nothing`;
  if (message.length > 2_000) return `the rejection is ${message.length} characters long`;
  if (/\n\s+at /.test(message)) return 'the rejection carries a stack trace';
  if (/^\s*[[{]/.test(message) || /ZodError|"code":\s*"invalid_|\[object Object\]|\bundefined\b/.test(message))
    return `the rejection is a validator dump: ${message.slice(0, 120)}`;
  return null;
}

// ---- the targets --------------------------------------------------------------------------

const pure =
  <T>(run: (input: T) => Verdict | Promise<Verdict>) =>
  async () => ({ run: async (input: T) => run(input), close: async () => undefined });

/**
 * The verdict on an input whose parser reported `messages`: every one must read well (the first
 * that does not is what fails the run); the input counts as accepted when `accepted` says so,
 * else as rejected with the first message.
 */
function verdict(messages: string[], accepted = messages.length === 0): Verdict {
  for (const m of messages) if (unclear(m)) return { accepted: false, message: m };
  return accepted || messages.length === 0 ? { accepted: true } : { accepted: false, message: messages[0]! };
}

export const FUZZ_TARGETS: FuzzTarget<never>[] = [
  {
    name: 'frontmatter',
    reads: 'a topic file (YAML frontmatter + body)',
    arbitrary: frontmatterText,
    setup: pure((text: string) => {
      const topic = parseTopicFile(text, 'x.md');
      if (typeof topic.meta.name !== 'string' || typeof topic.meta.description !== 'string' || typeof topic.body !== 'string')
        throw new Error('a parsed topic file lacks its name, description or body');
      // The same head as Claude Code's recall scan reads it (the playground's Claude Code mode).
      const head = readHeadFrontmatter(headOf(text));
      if (head.description !== null && typeof head.description !== 'string')
        throw new Error("Claude Code's reading of the head gave a description that is not text");
      return verdict(topic.issues.map((i) => i.message));
    }),
  },
  {
    name: 'index',
    reads: 'MEMORY.md (pointer lines, the load cut)',
    arbitrary: indexText,
    setup: pure((text: string) => {
      const parsed = parseIndex(text);
      if (serializeIndex(parsed) !== text) throw new Error('MEMORY.md did not survive parse → serialise byte for byte');
      const load = loadIndexAsClaudeCode(text);
      if (load.loadedLines > load.lines || load.loadedChars > load.chars) throw new Error('the index load is larger than the index');
      if (load.truncated !== (load.warning !== null)) throw new Error('a cut index must carry the warning, and only a cut one');
      return verdict(parsed.lines.flatMap((l) => (l.kind === 'malformed' ? [`Line ${l.line} ${l.reason}.`] : [])));
    }),
  },
  {
    name: 'transcript',
    reads: 'transcript JSONL lines, assembled into turns',
    arbitrary: transcriptLines,
    setup: pure((lines: string[]) => {
      const assembler = new TurnAssembler({ chain: 'main', startOffset: 0 });
      const problems: string[] = [];
      let offset = 0;
      for (const line of lines) {
        const end = offset + Buffer.byteLength(line) + 1;
        const parsed = parseTranscriptLine(line);
        let event: TranscriptEvent;
        if (parsed.kind === 'record') event = { kind: 'record', record: parsed.record, offset, end };
        else {
          const detail =
            parsed.kind === 'malformed' || parsed.kind === 'invalid' ? parsed.reason : parsed.kind === 'unknown' ? `unknown type ${parsed.type}` : 'blank line';
          if (parsed.kind === 'malformed' || parsed.kind === 'invalid') problems.push(`Line at byte ${offset} skipped: ${detail}.`);
          event = {
            kind: 'skipped',
            reason: parsed.kind === 'unknown' ? 'unknown-type' : parsed.kind,
            offset,
            end,
            type: parsed.kind === 'invalid' || parsed.kind === 'unknown' ? parsed.type : null,
            detail,
          };
        }
        assembler.add(event);
        offset = end;
      }
      assembler.openTurn();
      assembler.close();
      return verdict(problems);
    }),
  },
  {
    name: 'hook payload',
    reads: "a Claude Code hook's stdin",
    arbitrary: hookInput,
    setup: pure(([event, stdin]: [string, string]) => {
      const parsed = parseHookPayload(event, stdin);
      return parsed.ok ? { accepted: true } : { accepted: false, message: `The hook input was not used: ${parsed.problem}.` };
    }),
  },
  {
    name: 'sync push (server)',
    reads: 'a PUT body from a client',
    arbitrary: putBody,
    async setup() {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-fuzz-server-'));
      const store = await openSqliteStore(path.join(dir, 'team.sqlite'));
      await createTeam(store, 'platform');
      const { token } = await issueToken(store, 'platform', 'fuzz');
      const app = createApp({ store, limits: { rateLimit: { burst: 1e9, perSecond: 1e9 }, maxEntryBytes: 64 * 1024 } });
      const auth = { authorization: `Bearer ${token}` };
      return {
        async run(body: string) {
          const etag = (await app.request('/v1/teams/platform/checksums', { headers: auth })).headers.get('etag')!;
          const res = await app.request('/v1/teams/platform/entries', {
            method: 'PUT',
            headers: { ...auth, 'content-type': 'application/json', 'if-match': etag },
            body,
          });
          if (res.status === 200) return { accepted: true };
          if (res.status >= 500) throw new Error(`the server answered ${res.status} to a client's bad push`);
          const error = errorResponseSchema.safeParse(await res.json());
          if (!error.success) throw new Error(`the server's ${res.status} answer is not the protocol's error shape`);
          return { accepted: false, message: error.data.message };
        },
        async close() {
          await store.close();
          await fs.rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'sync answers (client)',
    reads: "a server's answers to the team client, over loopback HTTP",
    arbitrary: serverAnswer,
    async setup() {
      let current: { status: number; etag: string | null; retryAfter: string | null; body: string } = { status: 200, etag: null, retryAfter: null, body: '' };
      const server = http.createServer((req, res) => {
        req.resume();
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (current.etag !== null) headers.etag = current.etag;
        if (current.retryAfter !== null) headers['retry-after'] = current.retryAfter.replace(/[^\x20-\x7e]/g, '');
        res.writeHead(current.status, headers);
        res.end(current.status === 304 ? undefined : current.body);
      });
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const client = new TeamClient({
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        team: 'platform',
        token: `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`,
        timeoutMs: 10_000,
      });
      return {
        async run(answer: ServerAnswer) {
          current = {
            status: answer.status,
            etag: answer.etag === null ? null : answer.etag.replace(/[^\x20-\x7e]/g, ''),
            retryAfter: answer.retryAfter,
            body: answer.body,
          };
          try {
            if (answer.call === 'me') await client.me();
            else if (answer.call === 'entries') await client.entries({ ifNoneMatch: '"e-1"' });
            else if (answer.call === 'checksums') await client.checksums();
            else {
              const outcome = await client.put('"e-1"', { 'a.md': 'x' });
              // The engine reports a refusal in its own words around the server's (team-sync.ts).
              if (!outcome.ok) return { accepted: false, message: `The server refused the push (${outcome.status}): ${outcome.error.message}` };
            }
            return { accepted: true };
          } catch (error) {
            if (error instanceof TeamClientError) return { accepted: false, message: error.message };
            throw error;
          }
        },
        async close() {
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
        },
      };
    },
  },
  {
    name: 'personal entries (client)',
    reads: "a personal space's sealed entries and key record, as a server sends them",
    arbitrary: personalInput,
    async setup() {
      const { master, text } = await createKey('a passphrase for the fuzzer');
      const keys = new PersonalKeys(master);
      const project = keys.projectId('git-remote:example.com/fuzz');
      const wire = keys.wireKey(project, 'user_me.md');
      const sealed = keys.seal(project, wire, 'user_me.md', Buffer.from('I am a fuzzer.\n'));
      return {
        async run(input: PersonalInput) {
          if (input.kind === 'record') {
            const record =
              input.mutate === null ? input.noise : JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), [input.mutate[0]]: input.mutate[1] });
            try {
              parseKeyRecord(record);
              return { accepted: true };
            } catch (error) {
              if (error instanceof PersonalKeyError) return { accepted: false, message: error.message };
              throw error;
            }
          }
          const content =
            input.edit === null
              ? input.noise
              : `${sealed.slice(0, input.edit[0] % (sealed.length + 1))}${input.edit[1]}${sealed.slice((input.edit[0] % (sealed.length + 1)) + input.edit[2])}`;
          const opened = keys.open(project, input.sameName ? wire : input.otherName, content);
          // The encrypting client's own sentence for a refused entry.
          return opened.ok
            ? { accepted: true }
            : { accepted: false, message: `Refused an encrypted entry: ${openFailure(opened.reason)}. Nothing was written.` };
        },
        async close() {},
      };
    },
  },
  {
    name: 'settings',
    reads: "Claude Code's settings.json files and Memdir's own settings",
    arbitrary: fc.tuple(settingsText, settingsText, settingsText),
    async setup() {
      const home = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-fuzz-settings-'));
      const project = path.join(home, 'repo');
      await fs.mkdir(path.join(project, '.claude'), { recursive: true });
      return {
        async run([user, shared, local]: [string, string, string]) {
          await fs.writeFile(path.join(home, 'settings.json'), user);
          await fs.writeFile(path.join(project, '.claude', 'settings.json'), shared);
          await fs.writeFile(path.join(project, '.claude', 'settings.local.json'), local);
          const effective = await readEffectiveSettings(home, { launchDir: project, canonicalRoot: project }, { HOME: home });
          if (typeof effective.autoMemoryEnabled !== 'boolean') throw new Error('autoMemoryEnabled is not a boolean after reading the settings');
          let app: unknown;
          try {
            app = JSON.parse(user);
          } catch {
            app = undefined;
          }
          const own = parseAppSettings(app);
          // Accepted: every file was read as settings (values it ignores, with their reason, are fine).
          return verdict(
            [...effective.problems.map((p) => p.message), ...effective.ignored.map((i) => `${i.key} in ${i.file} is ignored: ${i.reason}.`), ...own.problems],
            effective.problems.length === 0,
          );
        },
        async close() {
          await fs.rm(home, { recursive: true, force: true });
        },
      };
    },
  },
] as FuzzTarget<never>[];

/** What a run of one target found. */
export interface FuzzReport {
  name: string;
  cases: number;
  accepted: number;
  rejected: number;
  /** Inputs on which the parser threw, broke its contract, or rejected without a clear sentence (0, or the first found). */
  crashes: number;
  failure: string | null;
  ms: number;
}

/** Run `target` on `numRuns` generated inputs (seeded: the same seed replays the same cases). */
export async function runFuzzTarget(target: FuzzTarget<never>, numRuns: number, seed = 20261203): Promise<FuzzReport> {
  const harness = await target.setup();
  const report: FuzzReport = { name: target.name, cases: 0, accepted: 0, rejected: 0, crashes: 0, failure: null, ms: 0 };
  const start = performance.now();
  try {
    const result = await fc.check(
      fc.asyncProperty(target.arbitrary as fc.Arbitrary<unknown>, async (input) => {
        report.cases++;
        const verdict = await harness.run(input as never);
        if (verdict.accepted) report.accepted++;
        else {
          report.rejected++;
          const why = unclear(verdict.message);
          if (why) throw new Error(why);
        }
      }),
      { numRuns, seed, endOnFailure: true },
    );
    if (result.failed) {
      report.crashes = 1;
      const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      report.failure = `${error.split('\n')[0]} — input: ${JSON.stringify(result.counterexample?.[0])?.slice(0, 300)}`;
    }
  } finally {
    report.ms = performance.now() - start;
    await harness.close();
  }
  return report;
}
