/**
 * Index health (SPEC R-HEALTH): every problem a memory directory can have, each with its
 * file, line and a sentence a person understands, plus the fix when one is safe.
 * Pure: the scanner gathers the facts, this decides what is wrong.
 */
import { type ParsedIndex, indexLinks } from '../../shared/index-format.js';
import path from 'node:path';
import { type BuiltIndex, builtIndexSentence } from '../../shared/index-build.js';
import { type IndexLoad, lineFate } from '../../shared/index-load.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import type { DerivableHint } from '../../shared/not-worth-saving.js';
import { type Problem, type ProblemCode, type FixKind, SEVERITY_OF } from '../../shared/problems.js';
import type { FrontmatterIssue } from '../../shared/frontmatter.js';
import { type CutFacts, cutOfIndex } from '../../shared/index-cut.js';
import type { IndexReach } from '../../shared/index-state.js';
import { plural } from '../../shared/size-text.js';
import {
  type MemoryStoresSetting,
  type ReadOnlyStoreFolder,
  heldDeletes,
  heldDeletesSentence,
  inStoreMode,
  noIndexSentence,
  outsideStoresSentence,
  readOnlyStoreNote,
} from './claude-code-stores.js';
import { EMPTY_INDEX, type MemoryDirScan } from '../../shared/scan-types.js';
import { type MemoryType, type Scope, scopeRefusal } from '../../shared/memory-types.js';

export interface TopicFacts {
  file: string;
  /** Why the file could not be read, when it could not. */
  unreadable?: { code: 'unreadable' | 'unsafe-link'; reason: string };
  issues?: FrontmatterIssue[];
  /** R-NOTSAVE hints found in its body. */
  hints?: DerivableHint[];
  /** Its frontmatter's type (null: none that Claude Code reads). */
  type?: MemoryType | null;
}

export interface HealthInput {
  index: {
    exists: boolean;
    parsed: ParsedIndex | null;
    load: IndexLoad | null;
    unreadable?: { code: 'unreadable' | 'unsafe-link'; reason: string };
    /** No MEMORY.md: the index Claude Code writes at its next session start (index-build.ts); what it lists is not an orphan. */
    built?: BuiltIndex;
  };
  topics: TopicFacts[];
  /** Other paths (relative) the index points at that exist on disk but are not topic files. */
  otherExisting: ReadonlySet<string>;
  /** Other paths the index points at that hold a retired (emptied) team memory: no memory, so the pointer dangles. */
  otherRetired?: ReadonlySet<string>;
  /** Entries in the directory that are not readable as topic files at all (e.g. a directory named x.md). */
  strays: { file: string; reason: string }[];
  /** Topic files the parent directory's index links (team files from the main `MEMORY.md`), loaded and past the cut, and why Memdir will not edit that index (then no fix adds to it). */
  linkedFromParent?: IndexReach & { readOnly?: string };
  /** Which memory this directory holds; a team directory is held to R-TYPES's scopes. */
  scope?: Scope;
}

/**
 * How a problem of an index's lines names the index and what a bad line costs, by scope: MEMORY.md
 * reaches the agent, team/MEMORY.md only the people who read the team's index (Claude Code
 * 2.1.332 does not load it, index-state.ts). The one place for these words.
 */
const INDEX_WORDS = {
  private: {
    name: INDEX_FILE,
    dangling: 'the agent is told about a memory it cannot read',
    repeat: 'the repeat only uses up index space',
    unreadableButRead: ' Claude Code still loads it: memdir show --loaded and the MEMORY.md tab show what the agent gets.',
    unreadable: ' The agent starts without its memory index.',
  },
  team: {
    name: `${TEAM_DIR}/${INDEX_FILE}`,
    unreadableButRead: '',
    unreadable: '',
    dangling: "whoever reads the team's index is sent to a memory that is not there",
    repeat: "the repeat only makes the team's index longer to read",
  },
} as const;

export function problem(code: ProblemCode, file: string | null, line: number | null, message: string, fix: FixKind | null = null, target?: string): Problem {
  const severity = SEVERITY_OF[code];
  return target !== undefined ? { code, file, line, message, severity, fix, target } : { code, file, line, message, severity, fix };
}

export function assessHealth(input: HealthInput): Problem[] {
  const problems: Problem[] = [];
  const { index } = input;
  const topicFiles = new Set(input.topics.map((t) => t.file));

  const team = input.scope === 'team';
  const words = INDEX_WORDS[team ? 'team' : 'private'];
  if (index.unreadable) {
    // Claude Code reads what Memdir will not edit (a link out, not UTF-8): then only the editing is refused.
    const message = index.load
      ? `Memdir cannot edit ${words.name}: ${index.unreadable.reason}.${words.unreadableButRead}`
      : `${words.name} cannot be used: ${index.unreadable.reason}.${words.unreadable}`;
    problems.push(problem(index.unreadable.code, INDEX_FILE, null, message));
  }

  // R-HEALTH on index lines read as the agent reads them: any link to a `.md` file counts, wherever
  // it sits on its line; lines Claude Code strips first (frontmatter, comment blocks) do not
  // (index-state.ts, the one rule for what an index lists).
  const parent = input.linkedFromParent;
  // What lists a memory: its directory's own index, or for a team memory MEMORY.md's links alone
  // (Claude Code 2.1.332 does not load team/MEMORY.md, index-state.ts); what team/MEMORY.md names only says why.
  const linked = new Set<string>(parent ? [...parent.loaded, ...parent.cut] : []);
  if (index.built && !team) {
    for (const file of index.built.listed) linked.add(file.split('/').join(path.sep));
    problems.push(problem('index-built', null, null, builtIndexSentence(index.built)));
  }
  const listedInOwn = team ? new Set<string>() : linked;
  if (index.parsed) {
    const visible = (line: number) => !index.load || lineFate(index.load, line) !== 'hidden';
    const entryLines = new Set(index.parsed.lines.filter((l) => l.kind === 'entry').map((l) => l.line));
    for (const line of index.parsed.lines) {
      if (line.kind === 'malformed' && visible(line.line)) {
        problems.push(
          problem(
            'malformed-line',
            INDEX_FILE,
            line.line,
            `Line ${line.line} of ${words.name} looks like a pointer but ${line.reason}, so it points at nothing: "${clip(line.raw)}".`,
          ),
        );
      }
    }
    const pointedAt = new Map<string, number>();
    const reported = new Set<string>();
    for (const link of indexLinks(index.parsed)) {
      if (!visible(link.line)) continue;
      // A fix rewrites MEMORY.md: none is offered for one Memdir will not edit.
      const canonical = link.primary && entryLines.has(link.line) && !index.unreadable;
      if (link.file === '..' || link.file.startsWith('../')) {
        if (!reported.has(link.file))
          problems.push(
            problem(
              'unsafe-link',
              INDEX_FILE,
              link.line,
              `Line ${link.line} of ${words.name} points outside the memory directory (${link.file}); Memdir never follows such links.`,
              null,
              link.file,
            ),
          );
        reported.add(link.file);
        continue;
      }
      listedInOwn.add(link.file);
      if (link.primary) {
        const seen = pointedAt.get(link.file);
        if (seen !== undefined) {
          problems.push(
            problem(
              'duplicate-pointer',
              INDEX_FILE,
              link.line,
              `Line ${link.line} of ${words.name} points at ${link.file} again (first on line ${seen}); ${words.repeat}.`,
              canonical ? 'dedupe-pointer' : null,
              link.file,
            ),
          );
          continue;
        }
        pointedAt.set(link.file, link.line);
      }
      if (!reported.has(link.file) && !topicFiles.has(link.file) && !input.otherExisting.has(link.file)) {
        reported.add(link.file);
        problems.push(
          problem(
            'dangling-link',
            INDEX_FILE,
            link.line,
            input.otherRetired?.has(link.file)
              ? `Line ${link.line} of ${words.name} points at ${link.file}, a retired team memory (its text emptied); ${words.dangling}.`
              : `Line ${link.line} of ${words.name} points at ${link.file}, which does not exist; ${words.dangling}.`,
            canonical ? 'drop-pointer' : null,
            link.file,
          ),
        );
      }
    }
    // An index no one loads has no cut to warn of.
    if (!team && index.load?.truncated && index.load.firstCutLine !== null) {
      const memories = input.topics.filter((t) => !t.unreadable);
      const { lines: cutLines, facts } = cutOfIndex(index.parsed, index.load, { memories, problems });
      problems.push(
        problem(
          'over-limit',
          INDEX_FILE,
          index.load.firstCutLine,
          `${INDEX_FILE} is ${index.load.reason}: from line ${index.load.firstCutLine} on it never reaches the agent, ${overLimitLoss(facts, cutLines.length)}. Shorten hooks, merge entries or move detail into topic files.`,
        ),
      );
    }
  }

  for (const topic of input.topics) {
    if (topic.unreadable) {
      problems.push(unreadableTopicProblem(topic.file, topic.unreadable));
      continue;
    }
    for (const issue of topic.issues ?? []) problems.push(issueProblem(topic.file, issue));
    if (team && !linked.has(topic.file)) problems.push(teamOrphan(topic.file, index.parsed !== null && listedInOwn.has(topic.file), parent?.readOnly));
    else if (!team && (index.parsed !== null || index.exists === false) && !linked.has(topic.file)) {
      problems.push(
        problem(
          'orphan',
          topic.file,
          null,
          index.built
            ? `${topic.file} is left out of the ${INDEX_FILE} Claude Code writes at its next session start, so the agent never sees it there.`
            : `${topic.file} is not listed in ${INDEX_FILE}, so the agent never sees it at session start${index.exists ? '' : ` (there is no ${INDEX_FILE} yet)`}.`,
          // Adding it would write a MEMORY.md of one line, and Claude Code would then build none.
          index.unreadable || index.built ? null : 'add-to-index',
        ),
      );
    }
    for (const hint of topic.hints ?? []) problems.push(hintProblem(topic.file, hint));
    if (input.scope === 'team' && scopeRefusal(topic.type ?? null, 'team')) {
      problems.push(
        problem(
          'user-in-team',
          topic.file,
          null,
          `${topic.file} is a "user" memory in the team folder: it describes you personally and always stays private, so team sync does not upload it. Move it to your private memory.`,
        ),
      );
    }
  }

  for (const stray of input.strays) problems.push(problem('unreadable', stray.file, null, `${stray.file} cannot be read: ${stray.reason}.`));
  return problems;
}

/**
 * A main memory folder with no MEMORY.md while auto memory is off (settings `autoMemoryEnabled`
 * false, or the environment switch): Claude Code 2.1.332 then builds no index and loads none, so
 * the scan's built index (built-index.ts) is dropped — no `index-built` hint, nothing loaded. What
 * the build would list is still no orphan: Claude Code builds it once memory is on again.
 */
export function withAutoMemory<T extends MemoryDirScan>(own: T, autoMemoryEnabled: boolean): T {
  if (autoMemoryEnabled || own.index.exists || own.index.loaded.length === 0) return own;
  return { ...own, index: EMPTY_INDEX, problems: own.problems.filter((p) => p.code !== 'index-built') };
}

/**
 * A project whose memory Claude Code syncs with its memory stores (claude-code-stores.ts), applied
 * after the cached scans (the client's manifest is not a memory file):
 * - `noIndex` (storesLoadNoIndex's sentence; nothing here out of store mode): the client then
 *   loads no index at all, so no memory is unlisted, nothing is past a cut and no pointer is worth
 *   adding. Said once, on the private scan, instead of per memory; the summaries say nothing loads.
 * - `readOnly`: each memory in a read-only store's folder gets `read-only-store`, which the list,
 *   the editor, Health and `memdir show <file> --json` show with the file.
 * - Team memories in no team store's folder: `outside-store`, once on the team scan, naming them.
 * - Files deleted on disk that the client holds back (its basis): `held-delete`, once per scan.
 */
export function withClaudeCodeStores<T extends MemoryDirScan>(
  own: T,
  team: MemoryDirScan,
  stores: { memoryDir: string; setting: MemoryStoresSetting; folders: readonly string[]; readOnly: readonly ReadOnlyStoreFolder[] },
): { own: T; team: MemoryDirScan } {
  if (!inStoreMode(stores.setting)) return { own, team };
  const noIndex = noIndexSentence(stores.setting, stores.folders);
  // What the index files hold stays; nothing of them loads.
  const noLoad = ({ index }: MemoryDirScan) => ({ ...EMPTY_INDEX, exists: index.exists, lines: index.lines, bytes: index.bytes, chars: index.chars });
  const away = outsideStoresSentence(
    stores.folders,
    team.memories.map((m) => `${TEAM_DIR}/${m.file}`),
    stores.readOnly,
  );
  const outside = away === null ? [] : [problem('outside-store', null, null, away)];
  // Held deletes, said on the scan whose folder holds them (the user's own store: the private one).
  const gone = heldDeletes(stores.memoryDir, stores.folders);
  const heldIn = (team: boolean) => {
    const sentence = heldDeletesSentence(gone.filter((f) => f.startsWith(`${TEAM_DIR}/`) === team));
    return sentence === null ? [] : [problem('held-delete', null, null, sentence)];
  };
  const kept = (dir: MemoryDirScan) => dir.problems.filter((p) => p.code !== 'orphan' && p.code !== 'over-limit' && p.code !== 'index-built');
  const readOnly = (dir: MemoryDirScan, prefix: string) =>
    dir.memories.flatMap((m) => {
      const note = readOnlyStoreNote(stores.readOnly, `${prefix}${m.file}`);
      return note ? [problem('read-only-store', m.file, null, note)] : [];
    });
  return {
    own: { ...own, index: noLoad(own), problems: [problem('no-index-loaded', null, null, noIndex), ...heldIn(false), ...kept(own), ...readOnly(own, '')] },
    team: { ...team, index: noLoad(team), problems: [...outside, ...heldIn(true), ...kept(team), ...readOnly(team, `${TEAM_DIR}/`)] },
  };
}

/**
 * A team memory no link of MEMORY.md names: the agent never sees it, listed in team/MEMORY.md or
 * not. Its one-click fix adds `team/x.md` to MEMORY.md (memory-service.ts, pointerHome) — offered
 * only when Memdir will edit MEMORY.md; else the sentence says why not (`mainReadOnly`, as the
 * MEMORY.md tab says it).
 */
function teamOrphan(file: string, inTeamIndex: boolean, mainReadOnly: string | undefined): Problem {
  const name = `${TEAM_DIR}/${file}`;
  const why = inTeamIndex ? `is listed only in ${TEAM_DIR}/${INDEX_FILE}, which Claude Code 2.1.332 does not load` : `is not listed in ${INDEX_FILE}`;
  const cannot = mainReadOnly === undefined ? '' : ` Memdir cannot add that pointer: ${INDEX_FILE} ${mainReadOnly.replace(/^it /, '')}.`;
  return problem(
    'orphan',
    file,
    null,
    `${name} ${why}, so the agent never sees it at session start: point at it from ${INDEX_FILE} as ${name}.${cannot}`,
    mainReadOnly === undefined ? 'add-to-index' : null,
  );
}

/**
 * What the over-limit sentence says is lost: the memories the agent never sees (index-cut.ts),
 * and, apart, the pointers below the cut that name files that do not exist.
 */
function overLimitLoss(facts: CutFacts, pointers: number): string {
  const m = facts.cutMemories.length;
  const missing = facts.cutMissing.length;
  const gone =
    missing > 0
      ? ` (${missing === pointers ? (missing === 1 ? 'the pointer' : `all ${missing} pointers`) : `${missing} of the ${pointers} pointers`} below the cut ${missing === 1 ? 'names a file' : 'name files'} that ${missing === 1 ? 'does' : 'do'} not exist)`
      : '';
  if (m > 0) return `so ${plural(m, 'memory', 'memories')} ${m === 1 ? 'is' : 'are'} never seen at session start${gone}`;
  if (pointers > 0)
    return `so ${plural(pointers, 'pointer')} ${pointers === 1 ? 'is' : 'are'} never seen at session start, none of them to a memory the agent would otherwise miss${gone}`;
  return 'so its last lines are never seen at session start';
}

function unreadableTopicProblem(file: string, unreadable: NonNullable<TopicFacts['unreadable']>): Problem {
  return problem(unreadable.code, file, null, `${file} cannot be read: ${unreadable.reason}.`);
}

function issueProblem(file: string, issue: FrontmatterIssue): Problem {
  const line = issue.line ?? (issue.code === 'bad-frontmatter' ? 1 : null);
  return problem(issue.code, file, line, issue.message, issue.code === 'cut-by-comment' ? 'quote-value' : null);
}

function hintProblem(file: string, hint: DerivableHint): Problem {
  return problem('not-worth-saving', file, null, `${file}: ${hint.message}`);
}

/**
 * The problems a topic file's own facts give — why it cannot be read, or its frontmatter issues
 * then its R-NOTSAVE hints — in the order {@link assessHealth} reports them (which puts the file's
 * orphan problem, a fact of the index, between the two), added to `into`. The scan cache file
 * writes these facts once and builds their problems from them (scan-cache-record.ts).
 */
export function topicOwnProblems(topic: TopicFacts, into: Problem[] = []): Problem[] {
  if (topic.unreadable) {
    into.push(unreadableTopicProblem(topic.file, topic.unreadable));
    return into;
  }
  for (const issue of topic.issues ?? []) into.push(issueProblem(topic.file, issue));
  for (const hint of topic.hints ?? []) into.push(hintProblem(topic.file, hint));
  return into;
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 77)}…` : trimmed;
}
