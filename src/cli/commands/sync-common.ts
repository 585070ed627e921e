/**
 * What the `memdir team` and `memdir personal` commands share: finding the project, the data dir
 * and its credential store, reading a secret from stdin, and telling what a sync did.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type CliIo, type OptionSpec, CliFailure, EXIT_ERROR, EXIT_OK, EXIT_PROBLEMS, UsageError } from '../command.js';
import type { SyncReport } from '../../shared/contract/team.js';
import { resolveDataDir } from '../../main/data-dir.js';
import { projectsRoot } from '../../main/memdir/home.js';
import { type ProjectLocation, ProjectNotFoundError, locateProject } from '../../main/memdir/projects.js';
import { CREDENTIALS_FILE } from '../../main/settings/credentials.js';
import type { TeamConnection } from '../../main/team/connections.js';
import { homeFrom } from './scan.js';

export const projectOption: OptionSpec = { type: 'string', valueName: 'PATH|DIR', description: 'project directory, or its directory name under projects/ (required)' };

/** A directory name under projects/ when one exists by that name, else a path from the caller's directory. */
function projectTarget(target: string, home: string, cwd: string): string {
  if (!/[/\\]/.test(target) && !target.startsWith('.') && !target.startsWith('~') && fs.existsSync(path.join(projectsRoot(home), target))) return target;
  return target.startsWith('~') ? target : path.resolve(cwd, target);
}

export async function locate(values: Record<string, unknown>, io: CliIo): Promise<ProjectLocation> {
  if (typeof values.project !== 'string' || values.project.trim() === '') throw new UsageError('--project is required: a project directory or its name under projects/');
  const home = homeFrom(values, io);
  try {
    return await locateProject(home, projectTarget(values.project, home, io.cwd), io.env);
  } catch (error) {
    if (error instanceof ProjectNotFoundError) throw new CliFailure(error.message);
    throw error;
  }
}

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

/** What a sync did, in sentences that say what happened (issue 19: a failed push never reads "nothing to upload"). */
export function describeReport(io: CliIo, report: SyncReport, connection: TeamConnection, command = 'memdir team sync'): void {
  const where = `${connection.team} at ${connection.server}`;
  for (const key of report.push.confirmed) io.out(`Confirmed: team/${key} was saved by the server before the connection was lost last time.\n`);
  if (report.pull.status === 304) io.out(`Pull: nothing new from ${where} (version ${report.version ?? '?'}).\n`);
  else if (report.pull.status === 200) io.out(`Pull: ${report.pull.written.length} file(s) written from ${where}${report.pull.written.length ? `: ${report.pull.written.join(', ')}` : ''} (version ${report.version ?? '?'}).\n`);
  for (const key of report.pull.merged.filter((k) => !report.pull.conflicts.includes(k))) io.out(`Merged: team/${key} — your changes and the team's touched different lines; the merge is written and pushed.\n`);
  for (const key of report.pull.conflicts) {
    io.out(`Conflict: team/${key} — your changes and the team's overlap; the team's version is on disk${report.pull.merged.includes(key) ? ' with your other changes merged' : ''}, yours is kept. See \`memdir team conflicts --project ${connection.dir ?? '<project>'}\`.\n`);
  }
  for (const r of report.pull.refused) io.out(`Refused from the server: ${r.reason}\n`);
  const pending = report.waiting.filter((w) => w.reason === 'pending');
  if (report.push.uploaded.length) io.out(`Push: ${report.push.uploaded.length} file(s): ${report.push.uploaded.join(', ')}.\n`);
  else if (report.error) io.out(`Push: not done (the error below); your changes are kept${pending.length ? ` (${pending.length} file(s) wait)` : ''} and go up at the next sync.\n`);
  else if (pending.length) io.out(`Push: ${pending.length} file(s) still wait: ${pending.map((w) => w.key).join(', ')}.\n`);
  else io.out('Push: nothing to upload.\n');
  if (report.push.stale) io.out(`(${report.push.stale} push(es) were based on an older version and were retried.)\n`);
  for (const w of report.waiting.filter((x) => x.reason !== 'pending')) io.out(`Not uploaded: team/${w.key} — ${w.detail}\n`);
  if (report.error) io.err(`${command}: ${report.error.message}\n`);
}

/**
 * The exit code of a sync (issue 15, finding 10): 2 it failed; 1 it ran but something is not
 * where it should be — a conflict open, a local file held back, an entry from the server refused;
 * 0 everything here is on the server and the other way round.
 */
export function syncExitCode(report: SyncReport, openConflicts: number): number {
  if (report.error) return EXIT_ERROR;
  if (openConflicts > 0 || report.pull.refused.length > 0 || report.waiting.some((w) => w.reason !== 'pending')) return EXIT_PROBLEMS;
  return EXIT_OK;
}

