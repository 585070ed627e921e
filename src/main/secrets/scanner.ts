/**
 * The secret scanner (R-SYNC-SECURITY): run before every team upload — a file with a finding
 * is not uploaded — and on demand over any memory dir (`memdir secrets scan`), and by
 * extraction and dream before they write. @secretlint/core with the recommended preset
 * (AWS with key-id scanning on, GitHub, GitLab, Slack, npm, OpenAI, Anthropic api03, private
 * keys, database URLs, SendGrid, Shopify, …) plus Memdir's rules in rules.ts for the gaps.
 *
 * A finding never carries the secret: `match` is masked, `fingerprint` is a keyed hash of this
 * install (fingerprint.ts; for "allow" decisions that survive edits), `range` locates it for `redactFinding`.
 * The scanner fails closed: it never throws, and if scanning itself breaks, the text gets a
 * `memdir/scanner-error` finding so it is not uploaded unchecked.
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { lintSource } from '@secretlint/core';
import { type Finding, SCANNER_ERROR_RULE } from '../../shared/secret-types.js';
import { fingerprintMatches, fingerprinter, traceHead } from './fingerprint.js';
import { looksLikePlaceholderUrlPassword, looksMasked, maskSecret } from './heuristics.js';
import { PRESET_FORMATS, SECRET_RULES, rulesToRun } from './rules.js';
import { base64View, decodedView, joinedView, nameView, originalRange } from './views.js';

export type { Finding } from '../../shared/secret-types.js';

export interface ScanReport {
  findings: Finding[];
  /** Files not scanned and why (a symlink, unreadable, too large): never silently left out. */
  skipped: { file: string; reason: string }[];
  /** Files scanned. */
  files: number;
}

export interface ScanOptions {
  /** Files larger than this are skipped (and listed) rather than scanned (default 4 MB). */
  maxFileBytes?: number;
}

// @secretlint/core marks every rule run on a process-wide profiler whose PerformanceObserver
// keeps every entry forever and searches them linearly on each new mark. In a long-lived
// process (the app scans before every upload) memory grows without bound and each scan gets
// slower — measured: 2,000 scans in, 60 ms a scan; 4,000 in, 140 ms. Profiling is a
// debugging aid of the secretlint CLI, so it is switched off here. (@secretlint/profiler is
// the exact 12.0.0 that @secretlint/core pins; scanner.test.ts checks no mark is left.)
// secretlint is loaded at the first scan, not with the app: its ~300 KB took part in every
// start's module load, before the dashboard's first answer (issue 16, bench start).
let linter: Promise<{ lintSource: typeof lintSource; config: unknown }> | null = null;
function loadLinter(): NonNullable<typeof linter> {
  linter ??= Promise.all([import('@secretlint/core'), import('@secretlint/profiler'), import('@secretlint/secretlint-rule-preset-recommend')]).then(
    ([core, { secretLintProfiler }, { creator }]) => {
      secretLintProfiler.mark = () => undefined;
      return { lintSource: core.lintSource, config: configWith(cappedPreset(creator as unknown as Preset)) };
    },
  );
  return linter;
}

const MEMDIR_RULE_ID = '@memdir/secretlint-rule-memdir';
/**
 * At most this many hits of one kind (a rule's message: one of Memdir's rules, one of the
 * preset's formats) in one text reach secretlint, whose de-duplication compares every pair of
 * messages (8,000 hits: 8 s; 30,000: minutes; 5,000 GitHub tokens: 1.6 s). A text holding more
 * is refused whole either way: the hits past the count are reported as one finding of their own
 * (`memdir/too-many-secrets`) that says so and has no fingerprint, so it is never allowed —
 * allowing the secrets listed cannot let those past the count through. (`capped`, below.)
 */
export const MAX_HITS_PER_RULE = 200;
const TOO_MANY = 'too-many-secrets';
const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;
const BY_ID = new Map(SECRET_RULES.map((r) => [r.id, r]));

/** Titles for the preset's findings, by family (rules.ts PRESET_FORMATS). */
const PRESET_TITLES: Record<string, string> = Object.fromEntries(PRESET_FORMATS.map((f) => [f.family, f.title]));
/** The public prefix of each preset family's tokens, where it has one (its mask keeps it). */
const PRESET_PREFIXES = new Map(PRESET_FORMATS.flatMap((f) => (f.prefix ? [[f.family, f.prefix] as const] : [])));

interface RuleContext {
  createTranslator: (messages: unknown) => (id: string) => unknown;
  report: (descriptor: { message: unknown; range: readonly [number, number] }) => void;
}

/** Memdir's rules as one secretlint rule, so `secretlint-disable` comments apply to them too. */
const memdirRule = {
  messages: Object.fromEntries(SECRET_RULES.map((r) => [r.id, { en: () => r.title }])),
  meta: {
    id: MEMDIR_RULE_ID,
    recommended: true,
    type: 'scanner',
    supportedContentTypes: ['text'],
    docs: { url: 'https://github.com/memdir/memdir/blob/main/src/main/secrets/rules.ts' },
  },
  create(context: RuleContext) {
    const t = context.createTranslator(memdirRule.messages);
    return {
      file(source: { content: string }) {
        for (const rule of rulesToRun(source.content))
          for (const m of rule.find(source.content)) context.report({ message: t(rule.id), range: [m.start, m.end] });
      },
    };
  },
};

interface Message {
  messageId: string;
}
interface Rule {
  meta: { id: string };
  create: (context: RuleContext, options?: unknown) => { file?: (source: { content: string }) => unknown };
}
interface Preset {
  meta: unknown;
  create: (context: { registerRule: (rule: Rule, defaults?: unknown) => void }, options?: unknown) => void;
}

/**
 * `rule` reporting at most MAX_HITS_PER_RULE hits of each of its messages in a text, then one
 * `too-many-secrets` message from the first unlisted hit to the end of the last: only a
 * secretlint-disable region covering every hit it stands for can hide it (one around hit #201
 * alone would hide all past it).
 */
function capped<R extends Rule>(rule: R): R {
  return {
    ...rule,
    create(context: RuleContext, options?: unknown) {
      const t = context.createTranslator({ [TOO_MANY]: { en: () => TOO_MANY } });
      const counts = new Map<string, number>();
      let unlisted: [number, number] | null = null;
      const report: RuleContext['report'] = (descriptor) => {
        const id = (descriptor.message as Message).messageId;
        const count = (counts.get(id) ?? 0) + 1;
        counts.set(id, count);
        if (count <= MAX_HITS_PER_RULE) context.report(descriptor);
        else unlisted = unlisted ? [Math.min(unlisted[0], descriptor.range[0]), Math.max(unlisted[1], descriptor.range[1])] : [...descriptor.range];
      };
      const handlers = rule.create({ ...context, report }, options);
      const file = handlers.file;
      if (!file) return handlers;
      return {
        ...handlers,
        async file(source: { content: string }) {
          counts.clear();
          unlisted = null;
          await file(source);
          if (unlisted) context.report({ message: t(TOO_MANY), range: unlisted });
        },
      };
    },
  };
}

/** The recommended preset with each of its rules {@link capped}. */
function cappedPreset(preset: Preset): Preset {
  return {
    ...preset,
    create: (context, options) => preset.create({ ...context, registerRule: (rule, defaults) => context.registerRule(capped(rule), defaults) }, options),
  };
}

/**
 * The preset and Memdir's rule. Access key ids are off by default upstream, and a key id next
 * to its secret is the usual leak: Memdir's rule looks for them (rules.ts, `aws-access-key-id`).
 */
function configWith(recommendedPreset: unknown): unknown {
  return {
    rules: [
      {
        id: '@secretlint/secretlint-rule-preset-recommend',
        rule: recommendedPreset,
      },
      { id: MEMDIR_RULE_ID, rule: capped(memdirRule) },
    ],
  };
}

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function firstString(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const value = Object.values(data).find((v) => typeof v === 'string' && v.length > 0);
  return typeof value === 'string' ? value : null;
}

/**
 * Where a preset finding's secret really is. Some preset ranges start at the assignment rather
 * than the value (AWS secret keys), and URL rules report the whole URL: narrow to the password.
 */
function locate(text: string, range: readonly [number, number], data: unknown): { range: [number, number]; inUrl: boolean; user?: string } {
  let [start, end] = range;
  const value = firstString(data);
  if (value) {
    const at = text.indexOf(value, start);
    if (at !== -1 && at <= end + 200) [start, end] = [at, at + value.length];
  }
  const slice = text.slice(start, end);
  const url = /^(?:jdbc:)?[a-z][a-z0-9+.-]*:\/\/([^:/\s@]*):([^@/\s]+)@/i.exec(slice);
  if (url) {
    start += url[0].lastIndexOf(`:${url[2]}@`) + 1;
    end = start + url[2]!.length;
  }
  return { range: [start, end], inUrl: url !== null, ...(url ? { user: url[1]! } : {}) };
}

interface Candidate extends Finding {
  priority: number;
}

/** Keep one finding per stretch of text: the most specific rule, then the longest match (then the first seen: the text as written). */
function dedupe(found: Candidate[]): Finding[] {
  const sorted = [...found].sort((a, b) => b.priority - a.priority || b.range[1] - b.range[0] - (a.range[1] - a.range[0]) || a.range[0] - b.range[0]);
  const kept: Candidate[] = [];
  for (const f of sorted) {
    if (!kept.some((k) => f.range[0] < k.range[1] && k.range[0] < f.range[1])) kept.push(f);
  }
  return kept.sort((a, b) => a.range[0] - b.range[0]).map(({ priority: _priority, ...f }) => f);
}

function failClosed(file: string, why: string): Finding[] {
  return [
    {
      file,
      line: 1,
      column: 1,
      rule: SCANNER_ERROR_RULE,
      title: `The secret scan failed (${why}); treat the file as unsafe`,
      match: '',
      severity: 'error',
      range: [0, 0],
      fingerprint: '',
      where: 'content',
    },
  ];
}

/** A rule's hit in the text it ran on: where, which rule, and the secret as seen there. */
interface Hit {
  range: [number, number];
  rule: string;
  title: string;
  severity: Finding['severity'];
  priority: number;
  secret: string;
  /** What every token of the hit's format starts with, public (its mask keeps it; rules.ts `prefix`). */
  prefix?: RegExp;
  /** No fingerprint: never allowed (the count of a rule's hits ran over). */
  unallowable?: true;
}

/** Run every rule (the preset's and Memdir's) over one text. */
async function hitsIn(text: string, filePath: string): Promise<Hit[]> {
  const { lintSource, config } = await loadLinter();
  const result = await lintSource({
    source: { content: text, filePath, contentType: 'text' },
    options: { config: config as never, noPhysicFilePath: true, maskSecrets: false },
  });
  // secretlint drops a leading byte order mark before its rules see the text: their ranges count from after it.
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const hits: Hit[] = [];
  for (const message of result.messages) {
    if (message.type !== 'message') continue;
    const ours = message.ruleId === MEMDIR_RULE_ID;
    if (message.messageId === TOO_MANY) {
      // It spans every unlisted hit (see memdirRule); it points at the line of the first.
      const start = message.range[0] + bom;
      const lineEnd = text.indexOf('\n', start);
      const range = [start, Math.min(message.range[1] + bom, lineEnd === -1 ? text.length : lineEnd)] as [number, number];
      hits.push({
        range,
        rule: `memdir/${TOO_MANY}`,
        // Counted as the rules match, before placeholders and `secretlint-disable-next-line` lines are set
        // aside (review s45-4 #9): matches, not secrets — 200 `ghp_xxxx…` and 2 real tokens say so too.
        title: `More than ${MAX_HITS_PER_RULE} matches of one kind of secret: they are not listed one by one, and the file is refused whole`,
        severity: 'error',
        priority: 3,
        secret: text.slice(...range),
        unallowable: true,
      });
      continue;
    }
    const rule = ours ? BY_ID.get(message.messageId) : undefined;
    const source = ours ? 'memdir' : message.ruleId.replace('@secretlint/secretlint-rule-', '');
    const range = [message.range[0] + bom, message.range[1] + bom] as const;
    const located = ours ? { range: [range[0], range[1]] as [number, number], inUrl: false } : locate(text, range, message.data);
    const secret = text.slice(located.range[0], located.range[1]);
    const prefix = ours ? rule?.prefix : PRESET_PREFIXES.get(source);
    // The preset's formats match `ghp_xxxx…` and `<password>` as well as real keys, and its
    // URL rules take `someuser:somepassword@` for a credential: a URL's password is judged as
    // Memdir's own URL rule judges it (heuristics.ts), every other preset match by its mask.
    if (!ours && secret.length <= 500 && (located.inUrl ? looksLikePlaceholderUrlPassword(secret, located.user) : looksMasked(secret))) continue;
    hits.push({
      range: located.range,
      rule: rule?.reportedAs ?? `${source}/${message.messageId}`,
      title: rule?.title ?? PRESET_TITLES[source] ?? `${source} secret`,
      severity: rule?.severity ?? 'error',
      priority: rule?.priority ?? 2,
      secret,
      ...(prefix ? { prefix } : {}),
    });
  }
  return hits;
}

/**
 * Hits in `original` and in what a reader would decode of it (views.ts), in `original`'s offsets.
 * One found in base64 is named by the base64 as written (its mask, its fingerprint): that is what
 * the file holds and a person finds in it.
 */
async function hitsInEveryView(original: string, filePath: string, lines: 'wrapped' | 'single' = 'wrapped'): Promise<Hit[]> {
  const hits = await hitsIn(original, filePath);
  const decoded = decodedView(original);
  if (decoded) {
    for (const hit of await hitsIn(decoded.text, filePath)) hits.push({ ...hit, range: originalRange(decoded, ...hit.range) });
  }
  const joined = joinedView(original);
  if (joined) {
    for (const hit of await hitsIn(joined.text, filePath)) hits.push({ ...hit, range: originalRange(joined, ...hit.range), priority: hit.priority - 10 });
  }
  const encoded = base64View(decoded?.text ?? original, lines);
  if (encoded) {
    for (const hit of await hitsIn(encoded.text, filePath)) {
      const inDecoded = originalRange(encoded, ...hit.range);
      const range = decoded ? originalRange(decoded, ...inDecoded) : inDecoded;
      hits.push({ ...hit, range, secret: original.slice(...range) });
    }
  }
  return hits;
}

function candidate(file: string, hit: Hit, original: string, where: Finding['where'], fingerprintOf: (secret: string) => string): Candidate {
  const at = where === 'name' ? { line: 0, column: hit.range[0] + 1 } : position(original, hit.range[0]);
  return {
    file,
    ...at,
    rule: hit.rule,
    title: hit.title,
    match: maskSecret(hit.secret, hit.prefix),
    severity: hit.severity,
    range: hit.range,
    // Of the secret as it stands in the original, so `redactFinding` can check it is still there.
    fingerprint: hit.unallowable ? '' : fingerprintOf(original.slice(...hit.range)),
    where,
    priority: hit.priority,
  };
}

/**
 * The findings of `hits` in `original`, one per stretch, fingerprinted: the key is read (or made)
 * only when there is a finding. Without it (the data dir can be neither read nor written) each is
 * still found and masked, with no fingerprint (so never allowed), and a failed-scan finding says why.
 */
async function findingsOf(file: string, hits: Hit[], original: string, where: Finding['where']): Promise<Finding[]> {
  if (hits.length === 0) return [];
  let fingerprintOf: (secret: string) => string = () => '';
  let problem: string | null = null;
  try {
    fingerprintOf = await fingerprinter();
  } catch (error) {
    problem = `no fingerprint key: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`;
  }
  const found = dedupe(hits.map((hit) => candidate(file, hit, original, where, fingerprintOf)));
  if (problem === null) return found;
  return [...found, ...failClosed(file, problem).map((f) => (where === 'name' ? { ...f, line: 0, where } : f))];
}

// Names are scanned again on every sync of a changed file: remember the verdicts (bounded).
const nameVerdicts = new Map<string, Finding[]>();
const MAX_NAME_VERDICTS = 5_000;

/** Findings in a file's relative path: a token in a file or folder name (`reference_ghp_….md`). */
async function scanName(rel: string, file: string): Promise<Finding[]> {
  const known = nameVerdicts.get(rel);
  if (known) return known.map((f) => ({ ...f, file }));
  let findings: Finding[];
  try {
    const view = nameView(rel);
    const hits: Hit[] = [];
    // One stretch of the name a line: no base64 run goes on onto the next.
    for (const hit of await hitsInEveryView(view.text, '<name>', 'single')) hits.push({ ...hit, range: originalRange(view, ...hit.range) });
    findings = await findingsOf(file, hits, rel, 'name');
  } catch (error) {
    return failClosed(file, error instanceof Error ? error.message.slice(0, 200) : 'unknown error').map((f) => ({ ...f, line: 0, where: 'name' as const }));
  }
  if (findings.some((f) => f.rule === SCANNER_ERROR_RULE)) return findings;
  if (nameVerdicts.size >= MAX_NAME_VERDICTS) nameVerdicts.clear();
  nameVerdicts.set(rel, findings);
  return findings;
}

export interface ScanTextOptions {
  /** How findings name the file (`team/notes.md`); `<text>` by default. */
  file?: string;
  /**
   * The file's path relative to its memory folder (`infra/reference_x.md`): every component
   * is scanned too, since a file's name travels with it (a team key is its name).
   */
  name?: string;
}

/**
 * Scan one text — as written and as a reader could decode it — and, when given, the file's
 * name. Never throws; resolves to the findings in the content in text order, then those in
 * the name.
 */
export async function scanText(text: string, options: ScanTextOptions = {}): Promise<Finding[]> {
  const file = options.file ?? '<text>';
  if (typeof text !== 'string') return failClosed(file, 'not text');
  try {
    const content = await findingsOf(file, await hitsInEveryView(text, file), text, 'content');
    return options.name === undefined ? content : [...content, ...(await scanName(options.name, file))];
  } catch (error) {
    return failClosed(file, error instanceof Error ? error.message.slice(0, 200) : 'unknown error');
  }
}

/** Read a file for scanning: bytes that are not UTF-8 are replaced, never a reason to skip. */
async function readForScan(file: string, maxBytes: number): Promise<{ text: string } | { reason: string }> {
  try {
    const stat = await fs.lstat(file);
    if (stat.isSymbolicLink()) return { reason: 'it is a symbolic link, which the scanner does not follow' };
    if (!stat.isFile()) return { reason: 'it is not a regular file' };
    if (stat.size > maxBytes) return { reason: `it is ${stat.size} bytes, more than the ${maxBytes} the scanner reads` };
    return { text: new TextDecoder('utf-8', { fatal: false }).decode(await fs.readFile(file)) };
  } catch (error) {
    return { reason: `it could not be read (${failureWords(error)})` };
  }
}

/**
 * `full` as it may be printed: every stretch of its name (the last `rel.length` characters)
 * that holds a secret — a finding `where: 'name'`, its range in `rel` — replaced by the masked
 * form, so reporting where a secret is never prints it. Findings in the content are ignored.
 */
export function maskedPath(full: string, rel: string, findings: readonly Finding[], mask = (f: Finding): string => f.match): string {
  let masked = rel;
  const inName = findings.filter((f) => f.where === 'name');
  for (const f of inName.sort((a, b) => b.range[0] - a.range[0])) masked = masked.slice(0, f.range[0]) + mask(f) + masked.slice(f.range[1]);
  return full.slice(0, full.length - rel.length) + masked;
}

/**
 * A path relative to a memory folder (`team/x.md`, `retros/2026.md`) with each secret in it masked
 * as {@link maskedPath} masks it, those secrets, and the path as masks before session 45 wrote it
 * (`oldMasked`, {@link oldMask}): records kept from then (allowed.json's `file`) name it so.
 */
export async function maskedName(name: string): Promise<{ masked: string; inName: Finding[]; oldMasked: string }> {
  const inName = (await scanText('', { name })).filter((f) => f.where === 'name' && f.rule !== SCANNER_ERROR_RULE);
  return { masked: maskedPath(name, name, inName), inName, oldMasked: maskedPath(name, name, inName, (f) => oldMask(name.slice(...f.range))) };
}

/** How a secret was masked before session 45: its first 1 to 4 characters (fingerprint.ts `traceHead`) and 4 to 12 stars. */
function oldMask(secret: string): string {
  const head = traceHead(secret);
  return `${head}${'*'.repeat(Math.min(12, Math.max(4, [...secret].length - [...head].length)))}`;
}

// The public prefix of each rule's tokens by the rule a finding names (`memdir/stripe-key`, `github/…`).
const PREFIX_BY_RULE = new Map(SECRET_RULES.flatMap((r) => (r.prefix ? [[r.reportedAs ?? `memdir/${r.id}`, r.prefix] as const] : [])));

/**
 * A finding's `match` as kept in a record (alerts.json, allowed.json), masked as today: a mask
 * written before session 45 showed a secret's first characters (`Tr**********`), now only stars of
 * its length, or the rule's public prefix and stars (`ghp_************`). A mask of today is kept.
 */
export function remasked(match: string, rule: string): string {
  if (/^\**(?:…\(\d+\))?$/.test(match)) return match;
  return maskSecret(match, PREFIX_BY_RULE.get(rule) ?? PRESET_PREFIXES.get(rule.slice(0, rule.indexOf('/'))));
}

/** `text` with every secret the scanner finds in it masked (as a finding's `match`), to quote back what someone typed. */
export async function maskSecretsIn(text: string): Promise<string> {
  let said = text;
  const found = (await scanText(text)).filter((f) => f.rule !== SCANNER_ERROR_RULE).sort((a, b) => b.range[0] - a.range[0]);
  for (const f of found) said = said.slice(0, f.range[0]) + f.match + said.slice(f.range[1]);
  return said;
}

/**
 * The one way to show a file's name, and a sentence about it, when the file is not shown for a
 * secret (a link, a `user` memory, too large, not UTF-8): `name` (a path relative to a memory
 * folder) masked as {@link maskedName} masks it, and every `texts` with each secret of that name
 * masked wherever it stands (the sentence names the file, perhaps under its folder), and any other
 * secret in them too (a link's target).
 */
export async function maskedForShowing(name: string, texts: readonly string[]): Promise<{ name: string; texts: string[] }> {
  const { masked, inName } = await maskedName(name);
  const shown: string[] = [];
  for (const text of texts) {
    let said = text;
    for (const f of inName) said = said.split(name.slice(f.range[0], f.range[1])).join(f.match);
    shown.push(await maskSecretsIn(said));
  }
  return { name: masked, texts: shown };
}

/** Scan a file's name (`rel`, relative to where the scan started) and, when it can be read, its content. */
async function scanPath(full: string, rel: string, options: ScanOptions): Promise<ScanReport> {
  const inName = await scanName(rel, full);
  const file = maskedPath(full, rel, inName);
  const named = inName.map((f) => ({ ...f, file }));
  const read = await readForScan(full, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
  if ('reason' in read) return { findings: named, skipped: [{ file, reason: read.reason }], files: 0 };
  return { findings: [...(await scanText(read.text, { file })), ...named], skipped: [], files: 1 };
}

/**
 * Scan one file (any content: binary and invalid UTF-8 are scanned as best decoded) and its
 * name. A file whose name holds a secret is reported with that part of its path masked.
 */
export async function scanFile(file: string, options: ScanOptions = {}): Promise<ScanReport> {
  return scanPath(file, path.basename(file), options);
}

/**
 * Scan a file's bytes held in memory — packed into an archive, or read from a history — and its
 * relative path `rel` (every component), as `scanFile` scans a file on disk: every size, and
 * findings name the file by `rel` with any stretch of it holding a secret masked.
 */
export async function scanContent(rel: string, data: Buffer | string): Promise<Finding[]> {
  const inName = await scanName(rel, rel);
  const file = maskedPath(rel, rel, inName);
  const text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: false }).decode(data);
  return [...(await scanText(text, { file })), ...inName.map((f) => ({ ...f, file }))];
}

/**
 * Scan every `*.md` under `dir`, recursively, and every file's path below `dir` (a token in a
 * file or folder name). Symbolic links are listed as skipped, never followed (a link to
 * ~/.ssh is not Memdir's to read); dot-directories (.git) are not entered.
 */
export async function scanDir(dir: string, options: ScanOptions = {}): Promise<ScanReport> {
  const report: ScanReport = { findings: [], skipped: [], files: 0 };
  const walk = async (current: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(current, { withFileTypes: true });
    } catch (error) {
      const rel = path.relative(dir, current);
      const shown = rel ? maskedPath(current, rel, await scanName(rel, current)) : current;
      report.skipped.push({ file: shown, reason: `the folder could not be read (${failureWords(error)})` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) await walk(full);
      } else if (entry.name.endsWith('.md')) {
        const one = await scanPath(full, path.relative(dir, full), options);
        report.findings.push(...one.findings);
        report.skipped.push(...one.skipped);
        report.files += one.files;
      }
    }
  };
  await walk(dir);
  return report;
}

/**
 * Replace the secret of `finding` in `text` with `placeholder` (the Alerts view's "redact").
 * Refuses when the text changed since the scan (the secret is no longer at its range): scan
 * again and redact the fresh finding, rather than cut the wrong characters.
 */
export async function redactFinding(
  text: string,
  finding: Finding,
  placeholder = '[REDACTED]',
): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  if (finding.where === 'name') return { ok: false, reason: `The secret is in the name of ${finding.file}, not in its text: rename the file.` };
  const [start, end] = finding.range;
  if (finding.fingerprint === '' || start < 0 || end > text.length || start >= end) return { ok: false, reason: 'This finding has no secret to redact.' };
  const fingerprintOf = await fingerprinter().catch(() => null);
  if (!fingerprintOf)
    return {
      ok: false,
      reason: 'Memdir cannot read or make its fingerprint key in its data dir, so it cannot tell this secret; see that the data dir is writable.',
    };
  if (!fingerprintMatches(finding.fingerprint, fingerprintOf(text.slice(start, end)))) {
    return { ok: false, reason: `${finding.file} changed since it was scanned; scan it again, then redact.` };
  }
  return { ok: true, text: text.slice(0, start) + placeholder + text.slice(end) };
}
