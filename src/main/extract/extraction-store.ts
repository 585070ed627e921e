/**
 * Extraction's own state in Memdir's data dir (`<dataDir>/extract/`):
 *   - `log.jsonl` — the extraction log: every span of turns (applied, queued, skipped and why)
 *     and every decision on a proposal (accepted, edited, rejected). Append-only, each line
 *     fsynced; rotated to `log.1.jsonl` past 5 MB.
 *   - `proposals/<id>.json` — the review queue, one file per proposal, replaced atomically.
 *   - `journal/<hash>.json` — per transcript, the decisions of a run not yet fully carried out
 *     (see extract-memories.ts): what makes a restart finish the work instead of redoing it.
 *   - `carry.json` — the app's turn ends not yet extracted, per transcript (how many, and how to
 *     treat a last turn): written before a hook event leaves the spool, or before the run of a turn
 *     end only the transcript watcher saw, and cleared when a run succeeds — so a run a crash, a
 *     quit or a full disk stopped is taken up at the next start, not forgotten.
 *   - `watched.json` — per home, the time up to which the app's transcript watcher had reported
 *     every change (see turn-end-watcher.ts): what a session wrote after it is new at the next start.
 */
import { maskSecretsIn, maskedName } from '../secrets/index.js';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import {
  type ExtractOperation,
  type ExtractionLogEntry,
  type Proposal,
  extractOperationSchema,
  extractionLogEntrySchema,
  proposalSchema,
} from '../../shared/contract/extract.js';
import { appendDataLines, writeDataFile } from '../core/safe-fs.js';
import type { TranscriptCursor } from '../transcripts/index.js';

const LOG_FILE = 'log.jsonl';
const CARRY_FILE = 'carry.json';
const WATCHED_FILE = 'watched.json';
const watchedSchema = z.object({ version: z.literal(1), homes: z.record(z.string(), z.number().int().nonnegative()) });
const LOG_ROTATE_BYTES = 5 * 1024 * 1024;
/** Decided proposals are dropped from the queue after this long (the log keeps them). */
const DECIDED_KEEP_MS = 30 * 24 * 3600 * 1000;
const ID = /^[a-z]+-[a-z0-9]+-[a-f0-9]+$/;

/** A fresh id: a prefix, the time in base 36 (so ids sort by age) and a random part. */
export function newId(prefix: 'ext' | 'prop' | 'dec'): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** The id of a proposal made from one operation of a log entry: the same each time (a journal carried out again after a crash queues it once). */
export function proposalIdOf(entryId: string, operationPath: string): string {
  const time = entryId.split('-')[1] ?? '0';
  return `prop-${time}-${createHash('sha256').update(`${entryId}\0${operationPath}`).digest('hex').slice(0, 12)}`;
}

const cursorSchema = z.custom<TranscriptCursor>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { offset?: unknown }).offset === 'number',
);

/** The operations of one span to apply, under the log entry that will record them. */
export const journalApplySchema = z.object({
  entryId: z.string(),
  sessionId: z.string().nullable(),
  operations: z.array(extractOperationSchema),
  /** For each update, by path in the memory dir: the file's text the model read (null: none), merged onto what it gained since. Absent in journals of an older Memdir. */
  bases: z.record(z.string(), z.string().nullable()).optional(),
  /** What the user said in the span: the evidence of an update queued because it overlapped an edit made meanwhile. */
  evidence: z.string().optional(),
});

/** A run's decisions, written before any of them is carried out. */
export const journalSchema = z.object({
  version: z.literal(1),
  transcriptPath: z.string(),
  project: z.string(),
  memoryDir: z.string(),
  createdAt: z.string(),
  /** What `commitCursor` needs: the cursor the read started from and the one to save. */
  previous: cursorSchema.nullable(),
  cursor: cursorSchema.nullable(),
  /** Log entries as planned; dispositions of `applied` operations are final once applied. */
  entries: z.array(extractionLogEntrySchema),
  proposals: z.array(proposalSchema),
  apply: z.array(journalApplySchema),
});
export type ExtractJournal = z.infer<typeof journalSchema>;

/** Turn ends of one transcript the app has not extracted yet (carry.json). */
const carriedSchema = z.object({
  /** For a session extraction has never read: how many of its last turns are new, as hook events counted them (0: none counted). */
  newTurns: z.number().int().min(0),
  /** For a session extraction has never read: the bytes its transcript held when the watcher first saw it (see ExtractRequest). */
  seenFrom: z.number().int().min(0).optional(),
  /** Turn ends noted since the last run that succeeded began (absent in older files: newTurns). */
  notes: z.number().int().min(1).optional(),
  closeTrailingTurn: z.enum(['never', 'if-answered', 'always']),
});
export type Carried = z.infer<typeof carriedSchema>;
const carrySchema = z.object({ version: z.literal(1), transcripts: z.record(z.string(), carriedSchema) });

/** The operations of one span to apply. */
export interface JournalApply {
  entryId: string;
  sessionId: string | null;
  operations: ExtractOperation[];
  bases?: Record<string, string | null>;
  /** What the user said in the span (as a proposal's evidence): an update refused at apply time is queued with it. */
  evidence?: string;
}

/** Extraction's files in the data dir (see the module comment). */
export class ExtractionStore {
  readonly dir: string;
  private appending: Promise<void> = Promise.resolve();
  private carrying: Promise<unknown> = Promise.resolve();
  /** The watched record being written (one change at a time in this process). */
  private watching: Promise<unknown> = Promise.resolve();
  /** The carry as this process has it while the disk refuses to write it (see `changeCarry`); null when the file says it all. */
  private unsaved: Record<string, Carried> | null = null;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'extract');
  }

  private get logFile(): string {
    return path.join(this.dir, LOG_FILE);
  }

  /** Append entries to the log, durably (fsync), in call order within this process. */
  appendLog(entries: readonly ExtractionLogEntry[]): Promise<void> {
    if (entries.length === 0) return this.appending;
    const run = this.appending.then(async () => {
      const text = (await Promise.all(entries.map(loggable))).map((e) => `${JSON.stringify(e)}\n`).join('');
      const size = (await fs.stat(this.logFile).catch(() => null))?.size ?? 0;
      if (size > LOG_ROTATE_BYTES) await fs.rename(this.logFile, path.join(this.dir, 'log.1.jsonl')).catch(() => undefined);
      // All the lines or none (a full disk): a torn line would swallow the next run's own.
      await appendDataLines(this.logFile, text, { what: 'the extraction log' });
    });
    this.appending = run.catch(() => undefined);
    return run;
  }

  private async readLogFile(file: string): Promise<ExtractionLogEntry[]> {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch {
      return [];
    }
    const entries: ExtractionLogEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const parsed = extractionLogEntrySchema.safeParse(JSON.parse(line));
        if (parsed.success) entries.push(parsed.data);
      } catch {
        // A torn last line (a crash mid-append) or a hand edit: skipped, the rest stands.
      }
    }
    return entries;
  }

  /** Log entries, newest first (one project, or all). */
  async readLog(options: { project?: string; limit?: number } = {}): Promise<ExtractionLogEntry[]> {
    const all = [...(await this.readLogFile(path.join(this.dir, 'log.1.jsonl'))), ...(await this.readLogFile(this.logFile))];
    const filtered = options.project ? all.filter((e) => e.project === options.project) : all;
    return filtered.reverse().slice(0, options.limit ?? 200);
  }

  /** Ids already in the log (to append a resumed run's entries only once). */
  async loggedIds(): Promise<Set<string>> {
    return new Set((await this.readLogFile(this.logFile)).map((e) => e.id));
  }

  private proposalFile(id: string): string {
    if (!ID.test(id)) throw new Error(`"${id}" is not a proposal id`);
    return path.join(this.dir, 'proposals', `${id}.json`);
  }

  async saveProposal(proposal: Proposal): Promise<void> {
    await writeDataFile(this.proposalFile(proposal.id), `${JSON.stringify(proposal, null, 2)}\n`, { mode: 0o600, what: 'a suggestion for the review queue' });
  }

  /** A proposal by id, or null (unknown id, damaged file). */
  async getProposal(id: string): Promise<Proposal | null> {
    if (!ID.test(id)) return null;
    try {
      const parsed = proposalSchema.safeParse(JSON.parse(await fs.readFile(this.proposalFile(id), 'utf8')));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Proposals, newest first; decided ones older than 30 days are removed on the way. */
  async listProposals(options: { project?: string; status?: 'pending' | 'all' } = {}): Promise<Proposal[]> {
    const folder = path.join(this.dir, 'proposals');
    let names: string[];
    try {
      names = (await fs.readdir(folder)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch {
      return [];
    }
    const out: Proposal[] = [];
    const now = Date.now();
    for (const name of names) {
      const proposal = await this.getProposal(name.slice(0, -'.json'.length));
      if (!proposal) continue;
      if (proposal.status !== 'pending' && proposal.decidedAt && now - Date.parse(proposal.decidedAt) > DECIDED_KEEP_MS) {
        await fs.rm(path.join(folder, name), { force: true });
        continue;
      }
      if (options.project && proposal.project !== options.project) continue;
      if ((options.status ?? 'pending') === 'pending' && proposal.status !== 'pending') continue;
      out.push(proposal);
    }
    return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  private journalFile(transcriptPath: string): string {
    const hash = createHash('sha256').update(path.resolve(transcriptPath)).digest('hex').slice(0, 32);
    return path.join(this.dir, 'journal', `${hash}.json`);
  }

  /** The unfinished run of a transcript, or null. A damaged journal is reported as `unreadable`. */
  async loadJournal(transcriptPath: string): Promise<ExtractJournal | null | 'unreadable'> {
    let text: string;
    try {
      text = await fs.readFile(this.journalFile(transcriptPath), 'utf8');
    } catch {
      return null;
    }
    try {
      const parsed = journalSchema.safeParse(JSON.parse(text));
      return parsed.success && parsed.data.transcriptPath === path.resolve(transcriptPath) ? parsed.data : 'unreadable';
    } catch {
      return 'unreadable';
    }
  }

  async saveJournal(journal: ExtractJournal): Promise<void> {
    await writeDataFile(this.journalFile(journal.transcriptPath), `${JSON.stringify(journal)}\n`, { mode: 0o600, what: 'the extraction under way' });
  }

  async removeJournal(transcriptPath: string): Promise<void> {
    await fs.rm(this.journalFile(transcriptPath), { force: true });
  }

  private get watchedFile(): string {
    return path.join(this.dir, WATCHED_FILE);
  }

  /** When the transcript watcher of this home last had everything reported (ms since the epoch); undefined when it never watched it (or the record is damaged). */
  async loadWatched(home: string): Promise<number | undefined> {
    try {
      const parsed = watchedSchema.safeParse(JSON.parse(await fs.readFile(this.watchedFile, 'utf8')));
      return parsed.success ? parsed.data.homes[path.resolve(home)] : undefined;
    } catch {
      return undefined;
    }
  }

  /** Record that the watcher of this home had everything reported up to `time` (never moved back), atomically. Throws a sentence when the disk refuses. */
  saveWatched(home: string, time: number): Promise<void> {
    const run = this.watching.then(async () => {
      let homes: Record<string, number> = {};
      try {
        const parsed = watchedSchema.safeParse(JSON.parse(await fs.readFile(this.watchedFile, 'utf8')));
        if (parsed.success) homes = parsed.data.homes;
      } catch {
        // Missing or damaged: written anew.
      }
      const key = path.resolve(home);
      const at = Math.max(Math.floor(time), homes[key] ?? 0);
      if (homes[key] === at) return;
      homes[key] = at;
      await writeDataFile(this.watchedFile, `${JSON.stringify({ version: 1, homes })}\n`, { mode: 0o600, what: 'when Memdir last watched the sessions' });
    });
    this.watching = run.catch(() => undefined);
    return run;
  }

  private get carryFile(): string {
    return path.join(this.dir, CARRY_FILE);
  }

  /**
   * The turn ends carried, by transcript path: the file's (none when it is missing or damaged) —
   * or, while the disk refuses a change made with `keepIfRefused`, the carry as that change left it.
   */
  async loadCarry(): Promise<Record<string, Carried>> {
    if (this.unsaved) return structuredClone(this.unsaved);
    try {
      const parsed = carrySchema.safeParse(JSON.parse(await fs.readFile(this.carryFile, 'utf8')));
      return parsed.success ? parsed.data.transcripts : {};
    } catch {
      return {};
    }
  }

  /**
   * Change the carry (one change at a time in this process), written whole or not at all; the
   * file is removed when nothing is carried. Throws a sentence when the disk refuses. With
   * `keepIfRefused`, a refused change still stands in this process (what `loadCarry` gives) and is
   * written with the next change the disk takes: for a turn end nothing else on disk owes (the
   * transcript watcher's) and a run's own bookkeeping. Without it (a hook event's turn end, which
   * the spool keeps until the note is written), a refused change is dropped.
   */
  changeCarry(change: (carried: Record<string, Carried>) => void, options: { keepIfRefused?: boolean } = {}): Promise<void> {
    const run = this.carrying.then(async () => {
      const carried = await this.loadCarry();
      const before = JSON.stringify(carried);
      change(carried);
      if (JSON.stringify(carried) === before && !this.unsaved) return;
      try {
        if (Object.keys(carried).length === 0) await fs.rm(this.carryFile, { force: true });
        else
          await writeDataFile(this.carryFile, `${JSON.stringify({ version: 1, transcripts: carried })}\n`, {
            mode: 0o600,
            what: 'which turns wait for extraction',
          });
        this.unsaved = null;
      } catch (error) {
        if (options.keepIfRefused) this.unsaved = carried;
        throw error;
      }
    });
    this.carrying = run.catch(() => undefined);
    return run;
  }
}

/**
 * An entry as the log keeps it: an operation refused (its reason, say, that it would write a
 * secret) with every secret in its words masked, its file's name too — the log is no second copy
 * of what Memdir refused to write.
 */
async function loggable(entry: ExtractionLogEntry): Promise<ExtractionLogEntry> {
  if (entry.kind !== 'turns' || !entry.outcome.operations.some((o) => o.disposition === 'refused')) return entry;
  const operations = await Promise.all(
    entry.outcome.operations.map(async (o) => {
      if (o.disposition !== 'refused') return o;
      const op = o.operation;
      const masked = async (text: string | null) => (text === null ? null : await maskSecretsIn(text));
      return {
        ...o,
        operation: {
          ...op,
          file: (await maskedName(op.file)).masked,
          name: await maskSecretsIn(op.name),
          description: await maskSecretsIn(op.description),
          body: await maskSecretsIn(op.body),
          hook: await masked(op.hook),
          reason: await masked(op.reason),
        },
      };
    }),
  );
  return { ...entry, outcome: { ...entry.outcome, operations } };
}
