/**
 * The delta of a push (R-SYNC, R-SYNC-SECURITY): every local file whose hash differs from the
 * server's checksum and whose server version is the base, read once through its confined handle,
 * vetted (UTF-8 text, no null bytes, within the entry limit, not a `user` memory in a team, no
 * secret that is not allowed) —
 * and, for every file kept back, the reason in the waiting list and, for a link or a secret, an
 * alert. The upload itself is in push.ts.
 */
import type { WaitingItem } from '../../../shared/contract/team.js';
import type { Finding } from '../../../shared/secret-types.js';
import { INDEX_FILE } from '../../../shared/limits.js';
import { strictUtf8 } from '../../../shared/utf8.js';
import { scopeRefusal } from '../../../shared/memory-types.js';
import { type FileFacts, parseTopicFile } from '../../memdir/index.js';
import { maskedForShowing, maskedName, maskedPath, scanText } from '../../secrets/index.js';
import { secretAlertMessage, secretAlertTitle } from '../alert-center.js';
import { type TeamFile, TeamPathError, checkTeamDir, claudeCodeStoreRefusal, resolveTeamKey } from '../team-paths.js';
import { holdsKeptVersion, holdsPulledVersion } from './conflicts.js';
import type { Cycle, LocalInfo, SyncEngine } from './engine.js';

/** How a refused read shows in the waiting list. */
function waitingReason(error: TeamPathError): WaitingItem['reason'] {
  if (error.reason === 'claude-code-store') return 'claude-code-store';
  return error.reason === 'symlink' || error.reason === 'outside' ? 'symlink' : error.reason === 'hardlink' ? 'hardlink' : 'not-a-file';
}

/** One file to push: its content, its hash, its size in bytes. */
export interface DeltaItem {
  content: string;
  sha: string;
  bytes: number;
}
/** What a push sends: key → the file to upload. */
export type Delta = Map<string, DeltaItem>;

/** A key as a sync report names it: every secret in the name masked, one allowed on purpose too (sent is no reason to print it). */
export async function shownKey(key: string): Promise<string> {
  return (await maskedName(key)).masked;
}

/**
 * Add a file to the waiting list, named as it may be shown: a token in its name (or in a link's
 * target) masked, whatever the reason it waits. A file held for a secret comes named masked
 * already (vetForUpload); one pending goes up under its name, allowed on purpose, and is shown
 * masked all the same (`cycle.pending` keeps its item by its key, for push.ts to take it off).
 */
async function waiting(cycle: Cycle, item: WaitingItem): Promise<void> {
  if (item.reason === 'secret') {
    cycle.report.waiting.push(item);
    return;
  }
  if (item.reason === 'pending') {
    // Its detail is Memdir's own sentence naming the file: the name masked in it is all there is to mask.
    const key = await shownKey(item.key);
    const shown = key === item.key ? item : { ...item, key, detail: item.detail.split(item.key).join(key) };
    (cycle.pending ??= new Map()).set(item.key, shown);
    cycle.report.waiting.push(shown);
    return;
  }
  const shown = await maskedForShowing(item.key, [item.detail]);
  cycle.report.waiting.push({ ...item, key: shown.name, detail: shown.texts[0]! });
}

/** The delta to push now: key → content, for every local file that differs and may be pushed. */
export async function computeDelta(e: SyncEngine, cycle: Cycle, opts: { dry: boolean }): Promise<Delta> {
  if (cycle.relist) {
    cycle.team = await checkTeamDir(e.memoryDir, e.space);
    cycle.listing = e.list(cycle.team);
    cycle.relist = false;
  }
  cycle.report.waiting = [];
  cycle.pending = new Map();
  const delta: Delta = new Map();
  const secretTopics = new Set<string>();
  const linkTopics = new Set<string>();
  for (const problem of cycle.listing.problems) {
    await waiting(cycle, { key: problem.key, reason: problem.reason, detail: problem.detail });
    if ((problem.reason === 'symlink' || problem.reason === 'hardlink') && !opts.dry) {
      const topic = e.topic('link', e.rel(problem.key));
      linkTopics.add(topic);
      const where = e.space.kind === 'team' ? 'the team folder' : 'the memory folder';
      // Its words are a desktop notification's body: a token in the link's name or target masked.
      const shown = await maskedForShowing(e.rel(problem.key), [
        problem.reason === 'symlink'
          ? `${e.rel(problem.key)} is a symbolic link (to ${problem.target ?? '?'}). Memdir never follows links in ${where} when it syncs: nothing was read or written through it, and it is not synced. Remove it or replace it with a real file.`
          : `${problem.detail} Nothing was read from it.`,
      ]);
      await e.raise(topic, {
        kind: 'security',
        title: problem.reason === 'symlink' ? `A link in ${where} was refused` : `A hard link in ${where} was refused`,
        message: shown.texts[0]!,
        file: shown.name,
      });
    }
  }

  const { server: serverMap, base: baseMap } = e;
  for (const [key, file] of cycle.listing.files) {
    let sha = e.knownHash(key, file);
    // The common case, kept cheap: unchanged since it was last hashed, and in step with the server.
    if (sha !== null && sha === serverMap.get(key) && sha === baseMap.get(key)) continue;
    let bytes: Buffer | null = null;
    if (sha === null && file.size > e.maxEntryBytes) {
      await waiting(cycle, {
        key,
        reason: 'too-large',
        detail: `${e.rel(key)} is ${file.size} bytes; a ${e.space.noun} file may hold at most ${e.maxEntryBytes}. Shorten it or split it.`,
      });
      continue;
    }
    // Resolved once: every read of this key below goes through the same handle.
    let handle: TeamFile;
    try {
      handle = await resolveTeamKey(cycle.team, key);
      // A folder Claude Code began to sync since the listing: none of its files go up either.
      const store = claudeCodeStoreRefusal(cycle.team, key);
      if (store) throw store;
    } catch (error) {
      if (!(error instanceof TeamPathError)) throw error;
      await waiting(cycle, { key, reason: waitingReason(error), detail: error.message });
      continue;
    }
    if (sha === null) {
      let info: LocalInfo | null;
      try {
        info = await e.localInfo(handle);
      } catch (error) {
        if (!(error instanceof TeamPathError)) throw error;
        await waiting(cycle, { key, reason: waitingReason(error), detail: error.message });
        continue;
      }
      if (!info) continue;
      sha = info.sha;
      bytes = info.bytes;
    }
    const server = e.server.get(key);
    const base = e.base.get(key);
    if (sha === server) {
      e.setBase(key, sha);
      continue;
    }
    // A conflict opened again (an Undo, a restore) left the team's earlier bytes here: no edit of this machine's;
    // or (the Undo of keeping the server's) the user's kept side, still to choose: not pushed over the team's.
    if (server !== undefined && (holdsPulledVersion(e, key, sha) || holdsKeptVersion(e, key, sha))) continue;
    if (server !== undefined && server !== base) {
      await waiting(cycle, {
        key,
        reason: 'server-moved',
        detail: `${e.rel(key)} changed on the server since this copy; the next pull brings it in (your version is kept as a conflict if it differs).`,
      });
      continue;
    }
    const refusal = cycle.refusedByServer.get(key);
    if (refusal && refusal.sha === sha) {
      await waiting(cycle, { key, reason: 'refused', detail: refusal.reason });
      continue;
    }
    if (file.size > e.maxEntryBytes) {
      await waiting(cycle, {
        key,
        reason: 'too-large',
        detail: `${e.rel(key)} is ${file.size} bytes; a ${e.space.noun} file may hold at most ${e.maxEntryBytes}. Shorten it or split it.`,
      });
      continue;
    }
    if (!bytes) {
      let read: { data: Buffer; facts: FileFacts } | null;
      try {
        read = await handle.read();
      } catch (error) {
        if (!(error instanceof TeamPathError)) throw error;
        await waiting(cycle, { key, reason: waitingReason(error), detail: error.message });
        continue;
      }
      if (!read) continue;
      bytes = read.data;
      // The hash must be of exactly the bytes that go up.
      sha = e.hashBytes(key, read.facts, read.data);
      if (sha === server) continue;
    }
    const vetted = await vetForUpload(e, cycle, key, sha, bytes);
    if ('reason' in vetted) {
      // A token in the file's name is shown masked, as one in its text is: in the waiting list and the alert's words.
      await waiting(cycle, { key: vetted.key, reason: vetted.reason, detail: vetted.detail });
      if (vetted.reason === 'secret') {
        const topic = e.topic('secret', e.rel(key));
        secretTopics.add(topic);
        if (!opts.dry)
          await e.raise(topic, {
            kind: 'secret',
            title: secretAlertTitle(e.rel(vetted.key), e.space),
            message: vetted.detail,
            // The file itself, for Open (never shown in words: the findings name it masked).
            file: e.rel(key),
            findings: vetted.findings,
          });
      }
      continue;
    }
    await waiting(cycle, { key, reason: 'pending', detail: `${e.rel(key)} changed here and waits to be pushed.` });
    delta.set(key, { content: vetted.content, sha, bytes: bytes.byteLength });
  }
  if (!opts.dry && e.raised.size > 0) {
    for (const topic of [...e.raised]) {
      if (topic.startsWith(e.topic('secret', '')) && !secretTopics.has(topic)) await e.resolveTopic(topic, 'the file no longer holds a blocking secret');
      if (topic.startsWith(e.topic('link', '')) && !linkTopics.has(topic)) await e.resolveTopic(topic, 'the link is gone');
    }
  }
  return delta;
}

/**
 * The one place a team file is vetted before it may leave the machine (R-SYNC-SECURITY): UTF-8
 * text, no null bytes, not a `user` memory (team only), and no secret the user has not allowed. Its text to upload, or why it
 * stays here (a secret's findings come along for the alert); a file kept back for a secret in its
 * name is named (`key`, `detail`, each finding's `file`) with that secret masked.
 */
async function vetForUpload(
  e: SyncEngine,
  cycle: Cycle,
  key: string,
  sha: string,
  bytes: Uint8Array,
): Promise<{ content: string } | (WaitingItem & { findings?: Finding[] })> {
  const content = strictUtf8(bytes);
  if (content === null) {
    return { key, reason: 'not-utf8', detail: `${e.rel(key)} is not UTF-8 text, so it is not uploaded. Save it as UTF-8.` };
  }
  if (content.includes('\0')) return { key, reason: 'binary', detail: `${e.rel(key)} contains null bytes (a binary file); ${e.space.noun} is text.` };
  const personal = userMemoryRefusal(e, key, content);
  if (personal) return { key, reason: 'user-memory', detail: personal };
  const { all, blocking: findings } = await blockingFindings(e, cycle, key, sha, content);
  if (findings.length > 0) {
    // Named with every secret in its name masked (the findings' name ranges are in the key): one
    // allowed on purpose too, which no longer blocks but is still no reason to print it.
    const shown = maskedPath(key, key, all);
    return {
      key: shown,
      reason: 'secret',
      detail: secretAlertMessage(e.rel(shown), findings, e.space),
      findings: findings.map((f) => ({ ...f, file: e.rel(shown) })),
    };
  }
  return { content };
}

/**
 * R-TYPES: a `user` memory always stays private, however it reached the team folder (by hand, by
 * an agent, by a pull). Personal sync is the user's own, so only a team holds it back.
 */
function userMemoryRefusal(e: SyncEngine, key: string, content: string): string | null {
  if (e.space.kind !== 'team' || !key.endsWith('.md') || key === INDEX_FILE) return null;
  if (!scopeRefusal(parseTopicFile(content, key).meta.type, 'team')) return null;
  return `${e.rel(key)} is a "user" memory: it describes you personally and always stays private, so it was not uploaded to the team. Move it to your private memory (Move to private in the app's Health or Team sync tab), or change its type if the team should have it.`;
}

/**
 * The findings in a file (`all`), and those that keep it back (`blocking`): every one not allowed
 * in this memory dir for this engine's space (an allow for personal sync never lets a team upload through). Both by key and content hash: the scan across syncs (the key is part of what
 * is scanned, a token in a file or folder name), the allowed list's answer once per sync (`cycle.blocking`:
 * an allow of a name scans names and parses the index again for each finding).
 */
async function blockingFindings(e: SyncEngine, cycle: Cycle, key: string, sha: string, content: string): Promise<{ all: Finding[]; blocking: Finding[] }> {
  const id = `${key}\0${sha}`;
  let findings = e.scans.get(id);
  if (!findings) {
    findings = await scanText(content, { file: e.rel(key), name: key });
    if (e.scans.size > 2_000) e.scans.clear();
    e.scans.set(id, findings);
  }
  cycle.blocking ??= new Map();
  let blocking = cycle.blocking.get(id);
  if (!blocking) {
    blocking = [];
    for (const f of findings) {
      if (!(await e.options.alerts?.isAllowed(e.memoryDir, e.space.kind, f, { rel: e.rel(key), content }))) blocking.push({ ...f, file: e.rel(key) });
    }
    cycle.blocking.set(id, blocking);
  }
  return { all: findings, blocking };
}
