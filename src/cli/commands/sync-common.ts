/**
 * What the `memdir team` and `memdir personal` commands share: finding the project, the data dir
 * and its credential store, reading a secret from stdin, and telling what a sync did.
 */
import fs from 'node:fs';
import path from 'node:path';
import { allowedSecrets, type CliIo, CliFailure, EXIT_ERROR, EXIT_OK, EXIT_PROBLEMS, UsageError, printJson, withAllowHint } from '../command.js';
import type { SyncReport, TeamConflict } from '../../shared/contract/team.js';
import { claudeCodeStoreOver, resolvedInClaudeCodeStore, waitingItemName, waitingNeedsYou } from '../../shared/sync-waiting.js';
import { resolveDataDir } from '../../main/core/index.js';
import type { ProjectLocation } from '../../main/memdir/index.js';
import { CREDENTIALS_FILE } from '../../main/settings/index.js';
import { type TeamConnection, type TeamSync } from '../../main/team/index.js';
import { readMergedTextFile } from '../merged-text-file.js';

export { optionalProjectOption, projectOption, locateProjectOption as locate } from '../project-option.js';

export function dataDirOf(io: CliIo): string {
  return resolveDataDir(io.env);
}

/** Whether the credential file was written encrypted by the desktop app (the CLI cannot read or rewrite it). */
export function credentialsEncrypted(dataDir: string): boolean {
  try {
    return (JSON.parse(fs.readFileSync(path.join(dataDir, CREDENTIALS_FILE), 'utf8')) as { encrypted?: unknown }).encrypted === true;
  } catch {
    return false;
  }
}

export async function readStdin(stream: NodeJS.ReadableStream | undefined): Promise<string> {
  if (!stream) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    if (chunks.reduce((n, c) => n + c.length, 0) > 10_000) break;
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** How a command family names its files and the other side (`team/x.md` and "the team's"; `x.md` and "your other machine's"). */
export interface SyncWords {
  /** Prefix of a key as shown: `team/`, or '' for the private memory. */
  prefix: string;
  /** Where a pull comes from: "platform at https://…". */
  where: string;
  /** The command family: `team` or `personal`. */
  family: 'team' | 'personal';
  /** The other side's version, possessive: "the team's". */
  theirs: string;
}

/** The words of a team connection. */
export function teamWords(connection: TeamConnection): SyncWords {
  return { prefix: 'team/', where: `${connection.team} at ${connection.server}`, family: 'team', theirs: "the team's" };
}

/**
 * What a sync did, in sentences that say what happened (issue 19: a failed push never reads
 * "nothing to upload"); `open`: the conflicts open after it, so a sync that exits 1 for one
 * opened earlier says so.
 */
export function describeReport(
  io: CliIo,
  report: SyncReport,
  connection: TeamConnection,
  command = 'memdir team sync',
  words: SyncWords = teamWords(connection),
  open: readonly TeamConflict[] = [],
): void {
  const { where, prefix, theirs } = words;
  if (report.pull.wentBack) io.out(`${report.pull.wentBack}\n`);
  for (const key of report.push.confirmed) io.out(`Confirmed: ${prefix}${key} was saved by the server before the connection was lost last time.\n`);
  if (report.pull.status === 304) io.out(`Pull: nothing new from ${where} (version ${report.version ?? '?'}).\n`);
  else if (report.pull.status === 200)
    io.out(
      `Pull: ${report.pull.written.length} file(s) written from ${where}${report.pull.written.length ? `: ${report.pull.written.join(', ')}` : ''} (version ${report.version ?? '?'}).\n`,
    );
  for (const key of report.pull.merged.filter((k) => !report.pull.conflicts.includes(k)))
    io.out(`Merged: ${prefix}${key} — your changes and ${theirs} touched different lines; the merge is written and pushed.\n`);
  // After the server went back, a copy here that differs may be the newer one, changed here or not: not said to "overlap".
  const why = report.pull.wentBack ? 'the server went back to an older version, so which text is newer is not known' : `your changes and ${theirs} overlap`;
  for (const key of report.pull.conflicts) {
    io.out(
      `Conflict: ${prefix}${key} — ${why}; ${theirs} version is on disk${report.pull.merged.includes(key) ? ' with your other changes merged' : ''}, yours is kept. See \`memdir ${words.family} conflicts --project ${connection.dir ?? '<project>'}\`.\n`,
    );
  }
  for (const r of report.pull.refused) io.out(`Refused from the server: ${r.reason}\n`);
  const pending = report.waiting.filter((w) => w.reason === 'pending');
  if (report.push.uploaded.length) io.out(`Push: ${report.push.uploaded.length} file(s): ${report.push.uploaded.join(', ')}.\n`);
  else if (report.error) {
    // A token refused stays refused: the changes go up only after connecting again with another.
    const when = report.error.code === 'revoked' || report.error.code === 'unauthorized' ? 'once you connect again with a new token' : 'at the next sync';
    io.out(`Push: not done (the error below); your changes are kept${pending.length ? ` (${pending.length} file(s) wait)` : ''} and go up ${when}.\n`);
  } else if (pending.length) io.out(`Push: ${pending.length} file(s) still wait: ${pending.map((w) => w.key).join(', ')}.\n`);
  else io.out('Push: nothing to upload.\n');
  if (report.push.stale) io.out(`(${report.push.stale} push(es) were based on an older version and were retried.)\n`);
  for (const w of report.waiting.filter((x) => x.reason !== 'pending')) io.out(`Not uploaded: ${waitingItemName(w, prefix)} — ${w.detail}\n`);
  const earlier = open.filter((c) => !report.pull.conflicts.includes(c.key));
  if (earlier.length > 0) {
    const keys = earlier.map((c) => `${prefix}${c.key}`);
    io.out(
      `${earlier.length === 1 ? '1 conflict is' : `${earlier.length} conflicts are`} still open (${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}): see memdir ${words.family} conflicts --project ${connection.dir ?? '<project>'}\n`,
    );
  }
  if (report.error) io.err(`${command}: ${report.error.message}\n`);
}

/** How `memdir team status` and `memdir personal status` say the last sync (by any process) failed: one line, no newline. */
export function lastSyncFailed(lastError: { message: string; at: string }): string {
  return `Last sync failed (${lastError.at}): ${lastError.message}`;
}

/**
 * The exit code of a sync (issue 15, finding 10): 2 it failed; 1 it ran but something is not
 * where it should be — a conflict open, a local file held back, an entry from the server refused;
 * 0 everything here is on the server and the other way round. A folder Claude Code syncs itself
 * (`claude-code-store`), and the server's files Memdir leaves out of it, are not the user's to
 * act on: listed, never a 1 by themselves.
 */
export function syncExitCode(report: SyncReport, openConflicts: number): number {
  if (report.error) return EXIT_ERROR;
  const refused = report.pull.refused.some((r) => !claudeCodeStoreOver(report.waiting, r.key));
  if (openConflicts > 0 || refused || report.waiting.some(waitingNeedsYou)) return EXIT_PROBLEMS;
  return EXIT_OK;
}

/** `conflicts`: the open conflicts of a project with both versions, their base and the proposal. */
export async function printConflicts(io: CliIo, values: Record<string, unknown>, loc: ProjectLocation, sync: TeamSync, words: SyncWords): Promise<number> {
  const { conflicts } = await sync.inspect();
  const details = [];
  for (const c of conflicts) details.push(await sync.conflictDetail(c.id));
  if (values.json) {
    printJson(io, {
      project: { dir: loc.dir, memoryDir: loc.memoryDir },
      conflicts: details.map((d) => ({
        ...d.conflict,
        mine: d.mine,
        theirs: d.theirs,
        theirsFrom: d.theirsFrom,
        base: d.base,
        proposal: d.proposal,
        overlaps: d.overlaps,
      })),
    });
  } else if (details.length === 0) {
    io.out(`${loc.dir}: no open ${words.family} sync conflict.\n`);
  } else {
    for (const { conflict: c, overlaps } of details) {
      const how = overlaps === null ? 'their common base is not known here' : `${overlaps} overlapping place(s)`;
      io.out(
        `Conflict ${c.id}: ${words.prefix}${c.key} — changed by ${c.serverUpdatedBy ?? '?'} on the server${c.serverUpdatedAt ? ` (${c.serverUpdatedAt})` : ''} and here; ${how}. Yours is kept since ${c.createdAt}.\n`,
      );
    }
    io.out(`Resolve each with: memdir ${words.family} resolve <id> --project ${String(values.project)} --keep mine|server|both|merged [--file F]\n`);
  }
  return details.length > 0 ? EXIT_PROBLEMS : EXIT_OK;
}

const KEEP = ['mine', 'server', 'both', 'merged'] as const;

/** The `--keep` of `resolve`, checked (with `--file`) before anything else is looked at. */
export function checkKeep(values: Record<string, unknown>): (typeof KEEP)[number] {
  const keep = values.keep;
  const known = 'mine, server, both or merged';
  if (typeof keep !== 'string') throw new UsageError(`--keep is required: ${known}`);
  if (!(KEEP as readonly string[]).includes(keep)) throw new UsageError(`--keep ${JSON.stringify(keep)} is not one of ${known}`);
  if (values.file !== undefined && keep !== 'merged') throw new UsageError('--file goes with --keep merged');
  return keep as (typeof KEEP)[number];
}

/**
 * `resolve <id>`: resolve one conflict the way `--keep` says (`open(localOnly)` gives the sync
 * client; keeping the server's version needs no server), print the undo, push unless `server`.
 */
export async function resolveFromCli(
  io: CliIo,
  id: string,
  values: Record<string, unknown>,
  loc: ProjectLocation,
  open: (localOnly: boolean) => Promise<TeamSync>,
  connection: TeamConnection,
  words: SyncWords,
): Promise<number> {
  const keep = checkKeep(values);
  const sync = await open(keep === 'server');
  const detail = await sync.conflictDetail(id);
  let text: string | undefined;
  if (keep === 'merged') {
    if (typeof values.file === 'string') {
      text = readMergedTextFile(io, values.file);
    } else if (detail.proposal !== null && detail.overlaps === 0) {
      text = detail.proposal;
    } else {
      throw new CliFailure(
        detail.overlaps === null
          ? `the common base of ${words.prefix}${detail.conflict.key} is not known here, so there is no merge to take; write one and pass it with --file F`
          : `your version and ${words.theirs} overlap in ${detail.overlaps} place(s); take the "proposal" of \`memdir ${words.family} conflicts --json\`, keep the lines you want where it marks an overlap, delete the <<<<<<<, ======= and >>>>>>> lines, and pass it with --file F`,
      );
    }
  }
  const result = await withAllowHint(() =>
    sync.resolve(id, keep === 'merged' ? 'merge' : keep, {
      ...(text !== undefined ? { text } : {}),
      theirsSha: detail.theirsSha,
      allowSecrets: allowedSecrets(values),
    }),
  );
  const key = result.conflict.key;
  // The undo of its entry, as History's Undo: the file goes back as the pull left it and the conflict opens again (history.ts `memdir undo`).
  const undo = result.rev ? `memdir undo ${loc.dir} ${result.rev.slice(0, 10)}` : null;
  if (values.json) {
    printJson(io, { project: { dir: loc.dir, memoryDir: loc.memoryDir }, conflict: result.conflict, rev: result.rev, undo, sync: result.report });
  } else {
    const what = {
      mine: 'your version is written',
      server: `${words.theirs} version stays`,
      both: 'both versions are kept',
      merged: 'the merge is written',
    }[keep];
    // Keeping the server's replaced yours on disk: say where yours is (its entry's undo puts it back).
    const entry = !result.rev
      ? ''
      : keep === 'server'
        ? ` Your version is in History (entry ${result.rev.slice(0, 10)}); undo with: ${undo}`
        : ` History entry ${result.rev.slice(0, 10)}; undo with: ${undo}`;
    io.out(`Resolved ${words.prefix}${key}: ${what}.${entry}\n`);
    const local = keep !== 'server' && result.report ? resolvedInClaudeCodeStore(key, result.report.waiting, words.prefix) : null;
    if (local) io.out(`${local}\n`);
    if (result.report) describeReport(io, result.report, connection, `memdir ${words.family} resolve`, words);
  }
  return result.report?.error ? EXIT_PROBLEMS : EXIT_OK;
}
