/**
 * Alerts (issue 7 part 5): what Memdir must tell the user about team sync — a secret that
 * blocks an upload, a link refused in the team folder, hostile keys or wrong checksums from a
 * server, a push that kept failing — kept in `<dataDir>/alerts/alerts.json` so they survive a
 * restart and reach the app from the CLI too.
 *
 * Life cycle: `raise` opens an alert for a *topic* (e.g. the secrets of one file); raising the
 * same topic again updates it in place, and only a new cause (a different finding, a different
 * message) announces it again — as the `alert` app event, which the desktop shell shows as a
 * native notification. `resolve` closes it when the cause is gone (redacted, allowed, clean
 * again, the next sync worked); `dismiss` is the user's "I know": a dismissed alert stays quiet
 * until its cause changes.
 *
 * Allowed findings (`allow`) are kept in `<dataDir>/alerts/allowed.json` with who and why; an
 * allowed fingerprint no longer blocks an upload of that exact match in that memory dir, in the
 * sync it was allowed for only (team or personal: the alert's space, `space`). A person
 * who allowed a secret where Memdir asked before sharing it (a move to the team anyway) is not
 * asked again: `allowOnPurpose` keeps that choice in the same list, for exactly what was asked —
 * that file's name and the index lines linking to it (`only: 'name'`), not its text nor another file.
 *
 * The app and the CLI both change these files: every change holds Memdir's lock on the alerts
 * folder (across processes), works on a fresh copy and replaces the files atomically.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { type AlertRecord, type AllowedSecret, alertRecordSchema, allowedSecretSchema } from '../../shared/contract/alerts.js';
import { shownFileOf } from '../../shared/alert-file.js';
import type { AppEvent } from '../../shared/contract/events.js';
import { type Finding, SCANNER_ERROR_RULE, whereFound } from '../../shared/secret-types.js';
import { indexLinks, parseIndex } from '../../shared/index-format.js';
import { INDEX_FILE } from '../../shared/limits.js';
import { withMemoryLock } from '../core/memory-lock.js';
import { fingerprintMatches, maskedName, remasked } from '../secrets/index.js';
import { writeDataFile } from '../core/safe-fs.js';
import { MemdirError } from '../../shared/errors.js';
import { PERSONAL_SPACE, type SyncSpace, TEAM_SPACE } from './sync-space.js';

/** Kept beside each alert: what it is about, and what exactly it said. */
const storedSchema = alertRecordSchema.extend({ topic: z.string(), signature: z.string() });
type StoredAlert = z.infer<typeof storedSchema>;
const alertsFileSchema = z.object({ version: z.literal(1), alerts: z.array(storedSchema) });
const allowedFileSchema = z.object({ version: z.literal(1), allowed: z.array(allowedSecretSchema) });

/** Closed alerts kept for the record. */
const KEEP_CLOSED = 200;

export interface RaiseInput {
  /** What the alert is about; one alert per topic (`secret:<memoryDir>:team/x.md`). */
  topic: string;
  kind: AlertRecord['kind'];
  title: string;
  message: string;
  dir?: string | null;
  memoryDir?: string | null;
  file?: string | null;
  findings?: Finding[];
}

/** An alert Memdir cannot act on as asked, in words. */
export class AlertError extends MemdirError<'not-found' | 'invalid-input' | 'conflict'> {
  override readonly name = 'AlertError';
}

function signatureOf(input: RaiseInput): string {
  if (input.findings && input.findings.length > 0)
    return input.findings
      .map((f) => `${f.rule}:${f.fingerprint}`)
      .sort()
      .join(',');
  return `${input.title}\n${input.message}`;
}

function publicRecord({ topic: _topic, signature: _signature, ...record }: StoredAlert): AlertRecord {
  return record;
}

/** See the file comment. */
export class AlertCenter {
  private alerts: StoredAlert[] | null = null;
  private allowed: AllowedSecret[] | null = null;
  private stamp: string | null = null;
  readonly file: string;
  readonly allowedFile: string;

  constructor(
    readonly dataDir: string,
    private readonly publish: (event: AppEvent) => void = () => undefined,
  ) {
    this.file = path.join(dataDir, 'alerts', 'alerts.json');
    this.allowedFile = path.join(dataDir, 'alerts', 'allowed.json');
  }

  private async fileStamp(file: string): Promise<string> {
    const st = await fs.stat(file).catch(() => null);
    return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : 'none';
  }

  /** Load (again, when another process changed the files). */
  private async ensure(): Promise<{ alerts: StoredAlert[]; allowed: AllowedSecret[] }> {
    const stamp = `${await this.fileStamp(this.file)}|${await this.fileStamp(this.allowedFile)}`;
    if (this.alerts && this.allowed && stamp === this.stamp) return { alerts: this.alerts, allowed: this.allowed };
    const read = async <T>(file: string, schema: z.ZodType<T>): Promise<T | null> => {
      try {
        const parsed = schema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    };
    // A record kept before session 45 shows a secret's first characters in its mask: masked as today when read.
    this.alerts = await Promise.all(((await read(this.file, alertsFileSchema))?.alerts ?? []).map(remaskedAlert));
    this.allowed = await Promise.all(
      ((await read(this.allowedFile, allowedFileSchema))?.allowed ?? []).map((a) => remaskedAllowed(withSpace(narrowedOldMove(a)))),
    );
    this.stamp = stamp;
    return { alerts: this.alerts, allowed: this.allowed };
  }

  private async saveAlerts(): Promise<void> {
    const alerts = this.alerts ?? [];
    const closed = alerts.filter((a) => a.status !== 'open');
    if (closed.length > KEEP_CLOSED) {
      const drop = new Set(
        closed
          .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : 1))
          .slice(0, closed.length - KEEP_CLOSED)
          .map((a) => a.id),
      );
      this.alerts = alerts.filter((a) => !drop.has(a.id));
    }
    await writeDataFile(this.file, `${JSON.stringify({ version: 1, alerts: this.alerts }, null, 1)}\n`, { mode: 0o600 });
    this.stamp = `${await this.fileStamp(this.file)}|${await this.fileStamp(this.allowedFile)}`;
  }

  /** Run a change on the freshest copy, one at a time across processes (see the file comment). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return withMemoryLock(path.dirname(this.file), fn, { dataDir: this.dataDir });
  }

  private announce(alert: StoredAlert): void {
    this.publish({
      type: 'alert',
      alert: { id: alert.id, kind: alert.kind, title: alert.title, message: alert.message, dir: alert.dir, time: alert.updatedAt },
    });
  }

  private changed(): void {
    this.publish({ type: 'alerts-changed', open: (this.alerts ?? []).filter((a) => a.status === 'open').length });
  }

  /** Open (or update) the alert of `input.topic`; see the file comment for when it is announced. */
  raise(input: RaiseInput, now = new Date()): Promise<AlertRecord> {
    return this.exclusive(async () => {
      const { alerts } = await this.ensure();
      const signature = signatureOf(input);
      const at = now.toISOString();
      const existing = alerts.find((a) => a.topic === input.topic && a.status !== 'resolved');
      const fields = {
        kind: input.kind,
        title: input.title,
        message: input.message,
        dir: input.dir ?? null,
        memoryDir: input.memoryDir ?? null,
        file: input.file ?? null,
        findings: input.findings ?? [],
      };
      if (existing) {
        const same = existing.signature === signature;
        // Dismissed and unchanged: the user already knows.
        if (same && existing.status === 'dismissed') return publicRecord(existing);
        Object.assign(existing, fields, { signature, updatedAt: at, count: existing.count + 1, status: 'open', resolution: null });
        await this.saveAlerts();
        if (!same) this.announce(existing);
        this.changed();
        return publicRecord(existing);
      }
      const alert: StoredAlert = {
        id: randomUUID(),
        topic: input.topic,
        signature,
        ...fields,
        status: 'open',
        resolution: null,
        createdAt: at,
        updatedAt: at,
        count: 1,
      };
      alerts.push(alert);
      await this.saveAlerts();
      this.announce(alert);
      this.changed();
      return publicRecord(alert);
    });
  }

  /** Close the open (or dismissed) alert of a topic, if any: its cause is gone. */
  resolve(topic: string, resolution: string, now = new Date()): Promise<AlertRecord | null> {
    return this.exclusive(async () => {
      const { alerts } = await this.ensure();
      const alert = alerts.find((a) => a.topic === topic && a.status !== 'resolved');
      if (!alert) return null;
      Object.assign(alert, { status: 'resolved', resolution, updatedAt: now.toISOString() });
      await this.saveAlerts();
      this.changed();
      return publicRecord(alert);
    });
  }

  /** Close every open alert whose topic starts with `prefix` and is not in `keep`. */
  async resolveOthers(prefix: string, keep: ReadonlySet<string>, resolution: string): Promise<void> {
    const { alerts } = await this.ensure();
    const stale = alerts.filter((a) => a.topic.startsWith(prefix) && a.status !== 'resolved' && !keep.has(a.topic)).map((a) => a.topic);
    for (const topic of stale) await this.resolve(topic, resolution);
  }

  /** Whether a topic has an alert that is not resolved (open or dismissed). */
  async isRaised(topic: string): Promise<boolean> {
    const { alerts } = await this.ensure();
    return alerts.some((a) => a.topic === topic && a.status !== 'resolved');
  }

  dismiss(id: string, now = new Date()): Promise<AlertRecord> {
    return this.exclusive(async () => {
      const { alerts } = await this.ensure();
      const alert = alerts.find((a) => a.id === id);
      if (!alert) throw new AlertError('not-found', 'There is no such alert (it may have been cleared).');
      if (alert.status === 'open') {
        Object.assign(alert, { status: 'dismissed', resolution: 'dismissed', updatedAt: now.toISOString() });
        await this.saveAlerts();
        this.changed();
      }
      return publicRecord(alert);
    });
  }

  /** One alert by id, with its topic. */
  async get(id: string): Promise<(AlertRecord & { topic: string }) | null> {
    const { alerts } = await this.ensure();
    const alert = alerts.find((a) => a.id === id);
    return alert ? { ...publicRecord(alert), topic: alert.topic } : null;
  }

  /** Open alerts first, then newest first. */
  async list(): Promise<{ alerts: AlertRecord[]; open: number; allowed: AllowedSecret[] }> {
    const { alerts, allowed } = await this.ensure();
    const rank = (a: StoredAlert): number => (a.status === 'open' ? 0 : 1);
    const sorted = [...alerts].sort((a, b) => rank(a) - rank(b) || (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
    return { alerts: sorted.map(publicRecord), open: alerts.filter((a) => a.status === 'open').length, allowed: [...allowed].reverse() };
  }

  /**
   * Whether a finding in `place`, on its way to `space`, was allowed in this memory dir for that
   * space (never the other one: allowed for my own machines is not shared with the team): by its
   * exact match's fingerprint, anywhere in the space, or only in the name it was allowed in and the
   * index lines linking to it.
   */
  async isAllowed(memoryDir: string, space: SyncSpace['kind'], finding: Finding, place: FindingPlace): Promise<boolean> {
    if (finding.rule === SCANNER_ERROR_RULE || finding.fingerprint === '') return false;
    const { allowed } = await this.ensure();
    for (const a of allowed) {
      if (a.memoryDir !== memoryDir || a.space !== space || !fingerprintMatches(a.fingerprint, finding.fingerprint)) continue;
      if (a.only === undefined || (await namesAllowedFile(fileKept(a), finding, place))) return true;
    }
    return false;
  }

  /** Record that a finding of an alert is allowed (who and why); the alert loses that finding. */
  allow(id: string, fingerprint: string, who: string, why: string, now = new Date()): Promise<{ alert: AlertRecord; allowed: AllowedSecret }> {
    return this.exclusive(async () => {
      const { alerts, allowed } = await this.ensure();
      const alert = alerts.find((a) => a.id === id);
      if (!alert) throw new AlertError('not-found', 'There is no such alert (it may have been cleared).');
      const finding = alert.findings.find((f) => f.fingerprint === fingerprint);
      if (!finding) throw new AlertError('not-found', 'That finding is no longer part of this alert; scan again.');
      if (finding.rule === SCANNER_ERROR_RULE || !alert.memoryDir)
        throw new AlertError('invalid-input', 'This finding cannot be allowed: the scan itself failed, so nothing is known about the file.');
      if (fingerprint === '')
        throw new AlertError(
          'invalid-input',
          'This finding cannot be allowed: it stands for more secrets than are listed one by one, so the file has to lose them first.',
        );
      const record = allowedRecord(alert.memoryDir, spaceOfTopic(alert.topic).kind, finding, who, why, now);
      allowed.push(record);
      await this.saveAllowed();
      this.dropFinding(alert, fingerprint, `allowed by ${who}`, now);
      await this.saveAlerts();
      this.changed();
      return { alert: publicRecord(alert), allowed: record };
    });
  }

  /**
   * Record findings allowed where Memdir asked before sharing them (a move to the team anyway),
   * as `allow` records an alert's: each no longer blocks an upload of that match in `memoryDir`.
   * One allowed there already is not recorded twice. `madeOn`: the history entry the move was
   * made on, so that undoing the move withdraws what it allowed (move-scope.ts).
   */
  allowOnPurpose(memoryDir: string, findings: readonly Finding[], who: string, madeOn: string | null, now = new Date()): Promise<void> {
    return this.exclusive(async () => {
      const { allowed } = await this.ensure();
      // A name's secret is allowed in that name only (see the file comment).
      const records = findings
        .filter((f) => f.rule !== SCANNER_ERROR_RULE && f.fingerprint !== '')
        .map((f) => ({
          ...allowedRecord(memoryDir, TEAM_SPACE.kind, f, who, MOVED_ANYWAY, now),
          ...(f.where === 'name' ? { only: 'name' as const } : {}),
          ...(madeOn ? { madeOn } : {}),
        }));
      const covers = (a: AllowedSecret, r: AllowedSecret) =>
        a.memoryDir === r.memoryDir &&
        a.space === r.space &&
        a.fingerprint === r.fingerprint &&
        (a.only === undefined || (a.only === r.only && a.file === r.file));
      const fresh = records.filter((r, i) => records.findIndex((g) => covers(g, r)) === i && !allowed.some((a) => covers(a, r)));
      if (fresh.length === 0) return;
      allowed.push(...fresh);
      await this.saveAllowed();
    });
  }

  /** Take away the allowed records `match` picks (a move undone takes back what it allowed); those taken. */
  withdraw(match: (a: AllowedSecret) => boolean): Promise<AllowedSecret[]> {
    return this.exclusive(async () => {
      const { allowed } = await this.ensure();
      const gone = allowed.filter(match);
      if (gone.length === 0) return [];
      this.allowed = allowed.filter((a) => !gone.includes(a));
      await this.saveAllowed();
      return gone;
    });
  }

  private async saveAllowed(): Promise<void> {
    const allowed = (this.allowed ?? []).map((a) => ({ ...a, file: fileKept(a) }));
    await writeDataFile(this.allowedFile, `${JSON.stringify({ version: 1, allowed }, null, 1)}\n`, { mode: 0o600 });
    this.stamp = `${await this.fileStamp(this.file)}|${await this.fileStamp(this.allowedFile)}`;
  }

  /** Remove one finding from an alert (redacted); resolved when none is left. */
  removeFinding(id: string, fingerprint: string, resolution: string, now = new Date()): Promise<AlertRecord> {
    return this.exclusive(async () => {
      const { alerts } = await this.ensure();
      const alert = alerts.find((a) => a.id === id);
      if (!alert) throw new AlertError('not-found', 'There is no such alert (it may have been cleared).');
      this.dropFinding(alert, fingerprint, resolution, now);
      await this.saveAlerts();
      this.changed();
      return publicRecord(alert);
    });
  }

  private dropFinding(alert: StoredAlert, fingerprint: string, resolution: string, now: Date): void {
    alert.findings = alert.findings.filter((f) => f.fingerprint !== fingerprint);
    alert.signature = alert.findings
      .map((f) => `${f.rule}:${f.fingerprint}`)
      .sort()
      .join(',');
    alert.updatedAt = now.toISOString();
    if (alert.findings.length === 0) Object.assign(alert, { status: 'resolved', resolution });
    // Named as its findings name it: a secret in the file's name stays masked (team/sync/delta.ts).
    else alert.message = secretAlertMessage(shownFileOf(alert), alert.findings, spaceOfTopic(alert.topic));
  }
}

/**
 * An alert as kept before session 45, masked as today: each finding's `match`, and — for a secret
 * alert, whose `file` keeps the real path — the file's name wherever it is shown (title, message,
 * each finding's `file`), rebuilt from that path as sync words them (delta.ts) (review s45-4 #5).
 * A record of today is kept as it is.
 */
async function remaskedAlert(a: StoredAlert): Promise<StoredAlert> {
  const named = a.kind === 'secret' && a.file && a.findings.length > 0 ? await maskedName(a.file) : null;
  // A secret in the name is masked exactly as today from the real path (an old mask lacks the rule's public prefix).
  const inName = (f: Finding) => (f.where === 'name' ? named?.inName.find((n) => n.fingerprint === f.fingerprint)?.match : undefined);
  const findings = a.findings.map((f) => ({ ...f, match: inName(f) ?? remasked(f.match, f.rule) }));
  // Rebuilt from the real path only when today's scanner finds each secret of the name again; a name it no longer
  // flags (a rule since narrowed) would be shown whole: its old masks are put to stars instead (review s45-6 #4).
  const refound = a.findings.every((f) => f.where !== 'name' || inName(f) !== undefined);
  const masked = refound ? (named?.masked ?? null) : null;
  if (masked !== null && findings.some((f, i) => f.match !== a.findings[i]!.match || f.file !== masked)) {
    const shown = findings.map((f) => ({ ...f, file: masked }));
    const space = spaceOfTopic(a.topic);
    return { ...a, findings: shown, title: secretAlertTitle(masked, space), message: secretAlertMessage(masked, shown, space) };
  }
  // Its message quotes each mask (`secretAlertMessage`).
  const message = a.findings.reduce((said, f, i) => (f.match === '' ? said : said.split(`(${f.match})`).join(`(${findings[i]!.match})`)), a.message);
  if (refound) return { ...a, findings, message };
  // A name's old mask stands in the title, the message and each finding's file too.
  const starred = (said: string) =>
    a.findings.reduce((s, f, i) => (f.where !== 'name' || f.match === '' ? s : s.split(f.match).join(findings[i]!.match)), said);
  return { ...a, findings: findings.map((f) => ({ ...f, file: f.file && starred(f.file) })), title: starred(a.title), message: starred(message) };
}

/**
 * An allowed record's `file` as kept before session 45 holds its name's secret under the old mask
 * (`team/reference_sk_l************.md`): named as today (`maskedName`) when that file is still in
 * its folder. Else it is shown by stars only, and the old name is kept (`keptFile`) — for
 * namesAllowedFile, which also knows the old mask, and to be written back — so the allow holds.
 */
async function remaskedAllowed(a: AllowedSecret): Promise<AllowedSecret> {
  const today = remasked(a.match, a.rule);
  if (today === a.match || a.match === '' || !a.file.includes(a.match)) return { ...a, match: today };
  const folder = path.posix.dirname(a.file);
  const head = a.match.replace(/\*+$/, '');
  const names = await fs.readdir(path.join(a.memoryDir, folder)).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.includes(head))) {
    const { masked, oldMasked } = await maskedName(path.posix.join(folder, name));
    if (oldMasked === a.file) return { ...a, file: masked, match: today };
  }
  const shown = { ...a, file: a.file.split(a.match).join(today), match: today };
  keptFile.set(shown, a.file);
  return shown;
}

/** The file an allowed record keeps when it is shown otherwise (remaskedAllowed). */
const keptFile = new WeakMap<AllowedSecret, string>();
const fileKept = (a: AllowedSecret): string => keptFile.get(a) ?? a.file;

/** Why a move to the team anyway allowed the secret in the moved memory's name (allowOnPurpose). */
export const MOVED_ANYWAY = 'moved to the team anyway, on purpose';

/**
 * An allow as it is read. Move anyway's first version (before cb355c9) recorded the secret in the
 * moved memory's name for the whole memory dir: no `only`. Its why is Memdir's own sentence
 * (MOVED_ANYWAY), where an alert's Allow keeps what the person typed, and its file is the moved
 * name masked, as now: read as that name's only, as Move anyway allows now. A person who typed that
 * very sentence on the Alerts page is asked again for the rest of the folder, never less.
 */
function narrowedOldMove(a: AllowedSecret): AllowedSecret {
  return a.only === undefined && a.why === MOVED_ANYWAY ? { ...a, only: 'name' } : a;
}

/**
 * An allow recorded before its space was kept (s35): given in the space of the alert it came from,
 * which its file names — a team sync alert's file is `team/…`, and personal sync never syncs that
 * folder (sync-space.ts); a move to the team anyway is the team's. Never wider than where it was given.
 */
function withSpace(a: AllowedSecret): AllowedSecret {
  if (a.space) return a;
  const team = a.why === MOVED_ANYWAY || a.file.toLowerCase().startsWith(`${TEAM_SPACE.folder}/`);
  return { ...a, space: team ? TEAM_SPACE.kind : PERSONAL_SPACE.kind };
}

/** What `allowed.json` keeps of an allowed finding: where (the memory dir and the sync), what (masked, with its fingerprint), who and why. */
function allowedRecord(memoryDir: string, space: SyncSpace['kind'], finding: Finding, who: string, why: string, now: Date): AllowedSecret {
  return {
    memoryDir,
    space,
    fingerprint: finding.fingerprint,
    rule: finding.rule,
    file: finding.file,
    match: finding.match,
    who,
    why: why.trim(),
    at: now.toISOString(),
  };
}

/** Where a finding was found: its file relative to the memory dir (`team/x.md`, as `file` names it, unmasked) and that file's text. */
export interface FindingPlace {
  rel: string;
  content: string;
}

/**
 * Whether `finding` is in the name allowed as `file` (masked, relative to the memory dir, as today
 * or before session 45 — an allow recorded then still holds): in that file's own name, or inside a
 * link to it on a line of an index (`MEMORY.md`) — its pointer.
 */
async function namesAllowedFile(file: string, finding: Finding, place: FindingPlace): Promise<boolean> {
  if (finding.where === 'name') {
    const { masked, oldMasked } = await maskedName(place.rel);
    return masked === file || oldMasked === file;
  }
  if (path.posix.basename(place.rel) !== INDEX_FILE) return false;
  const index = parseIndex(place.content);
  const raw = index.lines[finding.line - 1]?.raw;
  if (raw === undefined) return false;
  for (const link of indexLinks(index).filter((l) => l.line === finding.line)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(place.rel), link.file));
    const { masked, oldMasked, inName } = await maskedName(target);
    if ((masked !== file && oldMasked !== file) || !inName.some((f) => f.fingerprint === finding.fingerprint)) continue;
    // The secret itself lies in the link's target, `](file)`, not elsewhere on the line.
    const at = raw.indexOf(`](${link.file})`);
    const column = finding.column - 1;
    if (at >= 0 && column >= at + 2 && column < at + 2 + link.file.length) return true;
  }
  return false;
}

/** The space of a secret alert's topic (SyncEngine.topic: a personal engine's topics start with `personal-`). */
function spaceOfTopic(topic: string): SyncSpace {
  return topic.startsWith(`${PERSONAL_SPACE.kind}-`) ? PERSONAL_SPACE : TEAM_SPACE;
}

/** The title of a secret alert: which file a secret kept from going where. */
export function secretAlertTitle(file: string, space: SyncSpace): string {
  return `A secret kept ${file} from being ${space.kind === 'team' ? 'shared' : 'synced'}`;
}

/**
 * The message of a secret alert (and the held file's `waiting` detail): what blocks which upload,
 * and what a person can do about it — the CLI cannot redact, rename or allow, so the sentence
 * names the app's Alerts page, where each is one click.
 */
export function secretAlertMessage(file: string, findings: readonly Finding[], space: SyncSpace): string {
  const list = findings
    .slice(0, 5)
    .map((f) => `${f.title} ${whereFound(f, (n) => `on line ${n}`)} (${f.match})`)
    .join('; ');
  const more = findings.length > 5 ? `; and ${findings.length - 5} more` : '';
  const inName = findings.some((f) => f.where === 'name');
  const inText = findings.some((f) => f.where !== 'name');
  const fix = inName && inText ? 'Take it out of the file and rename the file' : inName ? 'Rename the file' : 'Take it out of the file';
  const safe = space.kind === 'team' ? 'safe to share' : 'safe to keep on your other machines';
  // What an Allow covers, said exactly (allowCovers): this space, every file of it in this project; never the other space.
  const covers =
    space.kind === 'team'
      ? "allow it for team sync (any file of this project's team memory)"
      : 'allow it for personal sync (any private memory of this project)';
  return `${file} was not uploaded to ${space.destination}: ${list}${more}. ${fix} (the app's Alerts page does it in one click), or ${covers} if it is ${safe}.`;
}
