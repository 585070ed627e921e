/**
 * The one generator of bench data: memories as people and models really write them, made by
 * recombining the 20 real memory directories in `shared/fixtures/memories/` — a `name:` line
 * from one file, a `description:` line from another, the frontmatter layout (flat or nested
 * `metadata:`) and extra keys of a third, the body of a fourth, each line kept byte for byte with
 * its quoting. On top, at fixed rates, what real memories hold and a template never would: `#`
 * (a YAML comment after a space), `: ` inside values (Claude Code's quoting retry), quotes,
 * URLs, emoji, Chinese and Japanese, CRLF files, a BOM, files without frontmatter.
 *
 * Every scenario that writes memories builds them here; the same seed gives the same bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prng } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** One fixture topic file taken apart. Lines are raw (no line ending), as written. */
interface FixtureTopic {
  stem: string;
  nameLine: string | null;
  descriptionLine: string | null;
  type: string | null;
  layout: 'flat' | 'nested' | 'none';
  /** The `metadata:` line as written (some carry a trailing space). */
  metadataLine: string;
  /** Other flat keys (`originSessionId: …`), or the nested block's extra lines. */
  extraLines: string[];
  body: string;
  /** The whole file, for files without frontmatter. */
  text: string;
}

export interface Corpus {
  topics: FixtureTopic[];
  withHeader: FixtureTopic[];
  withoutHeader: FixtureTopic[];
  /** Non-pointer lines of the real indexes (headings, prose), for index files. */
  indexProse: string[];
  /** Where the fixtures were read from. */
  root: string;
}

/** A generated memory: its file name and bytes, and what its index line says. */
export interface GeneratedMemory {
  file: string;
  text: string;
  /** The name and hook as written into MEMORY.md (plain text). */
  title: string;
  hook: string;
  /** The description as written, quotes undone (plain text; empty without frontmatter). */
  description: string;
  type: string | null;
}

/**
 * Where the fixtures are: `$MEMDIR_FIXTURES`, else the first `shared/fixtures/memories` found
 * walking up from the repository (worktrees live a level or two below it).
 */
export function fixturesRoot(): string {
  const fromEnv = process.env.MEMDIR_FIXTURES;
  if (fromEnv) return path.resolve(fromEnv);
  for (let dir = path.resolve(here, '..'); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'fixtures', 'memories');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error('bench: the real memory fixtures (shared/fixtures/memories) were not found above the repository; set MEMDIR_FIXTURES to their folder.');
}

function listMarkdown(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) listMarkdown(abs, out);
    else if (entry.isFile() && entry.name.endsWith('.md')) out.push(abs);
  }
  return out.sort();
}

function takeApart(abs: string): FixtureTopic {
  const raw = fs.readFileSync(abs, 'utf8');
  const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const stem = path.basename(abs, '.md');
  const fence = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(text);
  const none: FixtureTopic = {
    stem,
    nameLine: null,
    descriptionLine: null,
    type: null,
    layout: 'none',
    metadataLine: 'metadata:',
    extraLines: [],
    body: text,
    text,
  };
  if (!fence) return none;
  const topic: FixtureTopic = { ...none, body: text.slice(fence[0].length), layout: 'flat' };
  for (const line of fence[1]!.split('\n')) {
    if (line.startsWith('name:')) topic.nameLine = line;
    else if (line.startsWith('description:')) topic.descriptionLine = line;
    else if (/^metadata:/.test(line)) {
      topic.layout = 'nested';
      topic.metadataLine = line;
    } else if (/^ *type:/.test(line)) topic.type = line.replace(/^ *type:\s*/, '').trim() || null;
    else if (line.trim() !== '') topic.extraLines.push(line);
  }
  return topic.nameLine && topic.descriptionLine ? topic : { ...none };
}

let loaded: Corpus | null = null;

/** The fixtures, taken apart once per process. */
export function loadCorpus(): Corpus {
  if (loaded) return loaded;
  const root = fixturesRoot();
  const topics: FixtureTopic[] = [];
  const indexProse: string[] = [];
  for (const abs of listMarkdown(root)) {
    const base = path.basename(abs);
    if (base === 'README.md' && path.dirname(abs) === root) continue;
    if (base === 'SOURCE.md') continue;
    if (base === 'MEMORY.md') {
      for (const line of fs.readFileSync(abs, 'utf8').replace(/\r\n?/g, '\n').split('\n')) {
        if (line.trim() !== '' && !/\]\([^)]*\.md\)/.test(line)) indexProse.push(line);
      }
      continue;
    }
    topics.push(takeApart(abs));
  }
  const withHeader = topics.filter((t) => t.layout !== 'none');
  const withoutHeader = topics.filter((t) => t.layout === 'none');
  if (withHeader.length < 100) throw new Error(`bench: only ${withHeader.length} fixture memories with frontmatter under ${root}`);
  loaded = { topics, withHeader, withoutHeader, indexProse, root };
  return loaded;
}

// What real descriptions carry that the fixtures hold too rarely to count on at every scale.
const SPICE = [
  ' (see PR #412)', // ` #` starts a YAML comment: Claude Code's value stops before it
  ' — use case: rollback after a failed deploy', // `: ` makes the YAML invalid: the quoting retry reads it
  ' — runbook at https://wiki.example.com/ops/deploy?env=prod#rollback',
  ' 🚀 ship it',
  ' 部署前先跑集成测试，别跳过',
  ' デプロイ前に結合テストを実行する',
  ' the "fast" path, not the \'safe\' one',
  ' #hashtag-ish note',
  ' ✅ 已确认 / 確認済み',
];
const TYPES = ['user', 'feedback', 'project', 'reference'];

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 40) || 'memory'
  );
}

/** The plain text a raw `key: value` line shows (quotes removed), for index lines. */
function shownValue(line: string): string {
  const value = line.replace(/^[a-zA-Z_]+:\s*/, '').trim();
  const quoted = /^"(.*)"$/.exec(value) ?? /^'(.*)'$/.exec(value);
  return (quoted ? quoted[1]!.replace(/\\(.)/g, '$1') : value).replace(/\s+/g, ' ');
}

/** Append text inside a raw `key: value` line, keeping its quoting valid. */
function spiced(line: string, extra: string): string {
  if (/:\s*"/.test(line) && line.endsWith('"')) return `${line.slice(0, -1)}${extra.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  if (/:\s*'/.test(line) && line.endsWith("'")) return `${line.slice(0, -1)}${extra.replace(/'/g, "''")}'`;
  return line + extra;
}

/**
 * Memory number `i` of a stream seeded by `seed`: a recombination of real files. About one in
 * ten has no frontmatter (as in the fixtures), one in twenty is CRLF, one in a hundred has a BOM.
 */
export function generateMemory(corpus: Corpus, seed: number, i: number): GeneratedMemory {
  const random = prng((seed * 0x9e3779b1) ^ (i * 0x85ebca6b));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const roll = random();
  if (roll < 0.1 && corpus.withoutHeader.length > 0) {
    const source = pick(corpus.withoutHeader);
    const title = (/^#\s+(.+)$/m.exec(source.text)?.[1] ?? source.stem).trim();
    return { file: `${slug(source.stem)}_${i}.md`, text: source.text, title, hook: 'notes kept without frontmatter', description: '', type: null };
  }
  const layoutFrom = pick(corpus.withHeader);
  const nameFrom = pick(corpus.withHeader);
  const descriptionFrom = pick(corpus.withHeader);
  const bodyFrom = pick(corpus.topics);
  const type = random() < 0.97 ? pick(TYPES) : (layoutFrom.type ?? 'project');
  let descriptionLine = descriptionFrom.descriptionLine!;
  if (random() < 0.35) descriptionLine = spiced(descriptionLine, pick(SPICE));
  const nameLine = random() < 0.1 ? spiced(nameFrom.nameLine!, pick(SPICE.slice(3))) : nameFrom.nameLine!;
  const header = [nameLine, descriptionLine];
  if (layoutFrom.layout === 'nested') {
    const nested = layoutFrom.extraLines.filter((l) => l.startsWith(' ') && !/^ *type:/.test(l));
    header.push(layoutFrom.metadataLine, ...(nested.length ? [nested[0]!] : []), `  type: ${type}`, ...nested.slice(1));
  } else {
    header.push(`type: ${type}`, ...layoutFrom.extraLines.filter((l) => !l.startsWith(' ')));
  }
  let text = `---\n${header.join('\n')}\n---\n${bodyFrom.body.startsWith('\n') ? '' : '\n'}${bodyFrom.body}`;
  if (random() < 0.05) text = text.replace(/\n/g, '\r\n');
  if (random() < 0.01) text = `\uFEFF${text}`;
  const title = shownValue(nameLine);
  const hook = shownValue(descriptionLine);
  return { file: `${type}_${slug(nameFrom.stem)}_${i}.md`, text, title, hook: hook.length > 150 ? `${hook.slice(0, 147)}…` : hook, description: hook, type };
}

/** `count` memories of a stream as the recall ranker sees them (name, description, type). */
export function rankableMemories(
  count: number,
  seed = 3,
): { file: string; name: string; description: string; type: 'user' | 'feedback' | 'project' | 'reference' | null }[] {
  const corpus = loadCorpus();
  return Array.from({ length: count }, (_, i) => {
    const m = generateMemory(corpus, seed, i);
    return { file: m.file, name: m.title, description: m.description, type: m.type as 'user' | 'feedback' | 'project' | 'reference' | null };
  });
}

/** `MEMORY.md` for these memories: a heading and some real prose lines, then one pointer each. */
export function indexFor(corpus: Corpus, seed: number, memories: readonly GeneratedMemory[]): string {
  const random = prng(seed ^ 0x51ed);
  const prose = Array.from({ length: 2 }, () => corpus.indexProse[Math.floor(random() * corpus.indexProse.length)]!);
  const lines = ['# Memory index', '', ...prose, ''];
  for (const m of memories) lines.push(`- [${m.title.replace(/[[\]]/g, '')}](${m.file}) — ${m.hook}`);
  return `${lines.join('\n')}\n`;
}

export interface HomeSpec {
  projects: number;
  /** Memories per project, team memories included. */
  memoriesPerProject: number;
  /** Every n-th project has a `memory/team/` holding this share of its memories (0: none). */
  teamEvery?: number;
  seed?: number;
}

export interface BuiltHome {
  home: string;
  /** Every project directory (`projects/<dir>`). */
  projectDirs: string[];
  /** Every memory directory, team directories included. */
  memoryDirs: string[];
  memories: number;
  bytes: number;
}

/**
 * A Claude Code home of `projects` projects: each with a transcript naming its real path (the
 * way Claude Code records `cwd`), a `memory/` of recombined real memories and its index, and
 * for every `teamEvery`-th project a fifth of them in `memory/team/`. Files are dated a minute
 * back, as files in a real home are.
 */
export function writeHome(root: string, spec: HomeSpec): BuiltHome {
  const corpus = loadCorpus();
  const seed = spec.seed ?? 1;
  const home = path.join(root, 'home');
  const projectDirs: string[] = [];
  const memoryDirs: string[] = [];
  let memories = 0;
  let bytes = 0;
  const old = new Date(Date.now() - 60_000);
  const write = (file: string, text: string): void => {
    fs.writeFileSync(file, text);
    fs.utimesSync(file, old, old);
    bytes += Buffer.byteLength(text);
  };
  for (let p = 0; p < spec.projects; p++) {
    const realPath = `/work/repo-${p}`;
    const projectDir = path.join(home, 'projects', realPath.replace(/[^A-Za-z0-9]/g, '-'));
    const memoryDir = path.join(projectDir, 'memory');
    fs.mkdirSync(memoryDir, { recursive: true });
    projectDirs.push(projectDir);
    memoryDirs.push(memoryDir);
    const session = `00000000-0000-4000-8000-${String(p).padStart(12, '0')}`;
    write(
      path.join(projectDir, `${session}.jsonl`),
      `{"type":"summary","summary":"Deploy notes","leafUuid":"x"}\n{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"${realPath}","sessionId":"${session}","version":"2.1.332","gitBranch":"main","type":"user","message":{"role":"user","content":"remember: 部署前先跑集成测试"},"uuid":"u1","timestamp":"2026-03-01T09:00:00.000Z"}\n`,
    );
    const generated = Array.from({ length: spec.memoriesPerProject }, (_, i) => generateMemory(corpus, seed, p * spec.memoriesPerProject + i));
    const teamCount = spec.teamEvery && p % spec.teamEvery === 0 ? Math.floor(generated.length / 5) : 0;
    const own = generated.slice(0, generated.length - teamCount);
    const team = generated.slice(generated.length - teamCount);
    for (const m of own) write(path.join(memoryDir, m.file), m.text);
    write(path.join(memoryDir, 'MEMORY.md'), indexFor(corpus, seed + p, own));
    if (team.length > 0) {
      const teamDir = path.join(memoryDir, 'team');
      fs.mkdirSync(teamDir);
      memoryDirs.push(teamDir);
      for (const m of team) write(path.join(teamDir, m.file), m.text);
      write(path.join(teamDir, 'MEMORY.md'), indexFor(corpus, seed + p + 7, team));
    }
    memories += generated.length;
  }
  return { home, projectDirs, memoryDirs, memories, bytes };
}
