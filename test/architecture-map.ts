/**
 * The checker behind test/architecture.test.ts: the imports the code really has, reduced to the
 * nodes of docs/ARCHITECTURE.md's layer map, compared with the arrows and debts the page lists.
 * Each problem it finds is a sentence that names the exact line to paste into, or delete from,
 * the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import between two files, both relative to the repository (`src/main/jobs/job-runner.ts`). */
export interface FileImport {
  from: string;
  to: string;
}

/** What the page says: its arrows by source node, and its debts (imports that break the house rules). */
export interface ArchitectureMap {
  arrows: Map<string, Set<string>>;
  debts: FileImport[];
}

/**
 * The node of the map a file under src/ belongs to: `shared`, `cli`, `server`, `renderer`,
 * `preload`; under src/main its folder (`core`, `memdir`, `api`, …), with src/main/shell split
 * into `shell` (its own files), `shell/electron` and `shell/host`.
 */
export function nodeOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src' || parts.length < 3) throw new Error(`${file} is not under src/`);
  if (parts[1] !== 'main') return parts[1]!;
  if (parts.length < 4) return 'main';
  if (parts[2] === 'shell' && parts.length > 4) return `shell/${parts[3]}`;
  return parts[2]!;
}

/** Product files only: tests and their helpers (`*.test.ts`, `test-support/`) may reach anywhere. */
function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'test-support') sourceFiles(full, out);
    } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

/** Every module specifier a file names: static imports, `export … from`, `import()` and `import('…')` types with a plain string. */
export function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names: `./x.js` is x.ts (or x.tsx) under NodeNext, a folder its index. */
function resolveRelative(repo: string, fromFile: string, specifier: string): string {
  const target = path.resolve(path.dirname(path.join(repo, fromFile)), specifier);
  const stem = target.replace(/\.(js|jsx|ts|tsx)$/, '');
  const candidates = [target, `${stem}.ts`, `${stem}.tsx`, path.join(target, 'index.ts'), path.join(target, 'index.tsx')];
  const found = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile()) ?? target;
  return path.relative(repo, found).split(path.sep).join('/');
}

/** Every import between two files of ours under `<repo>/src` (packages are lint's business, not the map's). */
export function collectImports(repo: string): FileImport[] {
  const imports: FileImport[] = [];
  for (const full of sourceFiles(path.join(repo, 'src'))) {
    const from = path.relative(repo, full).split(path.sep).join('/');
    for (const specifier of specifiersOf(full, fs.readFileSync(full, 'utf8'))) {
      if (specifier.startsWith('.')) imports.push({ from, to: resolveRelative(repo, from, specifier) });
    }
  }
  return imports;
}

/** The arrows between nodes that a list of file imports makes (a node's imports of itself are no arrow). */
export function arrowsOf(imports: FileImport[]): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    if (!to.startsWith('src/')) continue;
    const [a, b] = [nodeOf(from), nodeOf(to)];
    if (a === b) continue;
    if (!arrows.has(a)) arrows.set(a, new Set());
    arrows.get(a)!.add(b);
  }
  return arrows;
}

/** The body of the first fenced block of `kind` (```layers, ```debts) in the page. */
function fencedBlock(markdown: string, kind: string): string[] {
  const match = new RegExp('^```' + kind + '\\s*\\n([\\s\\S]*?)^```', 'm').exec(markdown);
  if (!match) throw new Error(`docs/ARCHITECTURE.md has no \`\`\`${kind} block.`);
  return match[1]!
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
}

/**
 * Reads the page's two machine-readable blocks:
 *   ```layers   one line per node: `memdir -> core, data-dir, history` (`shared ->` for none)
 *   ```debts    one import per line: `src/main/jobs/job-runner.ts -> src/main/app/event-bus.ts`
 * A `#` starts a comment.
 */
export function parseMap(markdown: string): ArchitectureMap {
  const arrows = new Map<string, Set<string>>();
  for (const line of fencedBlock(markdown, 'layers')) {
    const match = /^(\S+)\s*->\s*(.*)$/.exec(line);
    if (!match) throw new Error(`The layers block has a line that is not "node -> a, b": ${line}`);
    if (arrows.has(match[1]!)) throw new Error(`The layers block lists ${match[1]} twice.`);
    arrows.set(
      match[1]!,
      new Set(
        match[2]!
          .split(',')
          .map((to) => to.trim())
          .filter(Boolean),
      ),
    );
  }
  const debts = fencedBlock(markdown, 'debts').map((line) => {
    const match = /^(\S+)\s*->\s*(\S+)$/.exec(line);
    if (!match) throw new Error(`The debts block has a line that is not "src/a.ts -> src/b.ts": ${line}`);
    return { from: match[1]!, to: match[2]! };
  });
  return { arrows, debts };
}

/** A node's line in the layers block, its targets sorted. */
export function layerLine(from: string, to: Iterable<string>): string {
  return `${from} -> ${[...to].sort().join(', ')}`.trimEnd();
}

const importLine = ({ from, to }: FileImport): string => `${from} -> ${to}`;

/** A cycle among the arrows, as `a -> b -> a`, or null. */
function findCycle(arrows: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...trail.slice(trail.indexOf(node)), node];
    state.set(node, 'open');
    trail.push(node);
    for (const next of [...(arrows.get(node) ?? [])].sort()) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    trail.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of [...arrows.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * What the page gets wrong about the code, each as a sentence naming the exact line to change:
 *   - an arrow the code has and the layers block lacks (the node's whole corrected line);
 *   - an arrow the layers block lists and the code no longer has (stale: the corrected line);
 *   - a debt whose import is gone (paid: the line to delete);
 *   - an import that runs along a debt arrow (an arrow some debt names) without being listed as a debt;
 *   - a cycle among the arrows that are not debts (the map's layers must stack).
 * Empty when the page and the code agree.
 */
export function checkMap(map: ArchitectureMap, imports: FileImport[]): string[] {
  const problems: string[] = [];
  const code = arrowsOf(imports);
  const nodes = [...new Set([...code.keys(), ...map.arrows.keys()])].sort();
  for (const node of nodes) {
    const has = code.get(node) ?? new Set<string>();
    const listed = map.arrows.get(node) ?? new Set<string>();
    const missing = [...has].filter((to) => !listed.has(to)).sort();
    const stale = [...listed].filter((to) => !has.has(to)).sort();
    if (missing.length === 0 && stale.length === 0) continue;
    const why = [
      missing.length ? `the code has ${missing.map((to) => `${node} -> ${to}`).join(', ')}, which the map lacks` : '',
      stale.length ? `the map lists ${stale.map((to) => `${node} -> ${to}`).join(', ')}, which the code no longer has` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const was = map.arrows.has(node) ? `replace\n    ${layerLine(node, listed)}\n  with` : 'add';
    const now = has.size ? `\n    ${layerLine(node, has)}` : map.arrows.has(node) ? `\n    ${node} ->` : '';
    problems.push(`In the \`\`\`layers block of docs/ARCHITECTURE.md ${was}${now}\n  (${why}).`);
  }
  const present = new Set(imports.map(importLine));
  const debtLines = new Set(map.debts.map(importLine));
  for (const debt of map.debts) {
    if (!present.has(importLine(debt))) {
      problems.push(`Delete from the \`\`\`debts block of docs/ARCHITECTURE.md\n    ${importLine(debt)}\n  (that import is gone: the debt is paid).`);
    }
  }
  const debtArrows = new Set(map.debts.map(({ from, to }) => `${nodeOf(from)} -> ${nodeOf(to)}`));
  const unlisted = [...new Set(imports.filter(({ from, to }) => to.startsWith('src/') && debtArrows.has(`${nodeOf(from)} -> ${nodeOf(to)}`)).map(importLine))]
    .filter((line) => !debtLines.has(line))
    .sort();
  for (const line of unlisted) {
    problems.push(
      `Add to the \`\`\`debts block of docs/ARCHITECTURE.md (or import through a path the map allows)\n    ${line}\n  (it runs along an arrow the map counts as a debt).`,
    );
  }
  const sound = new Map([...code].map(([from, to]) => [from, new Set([...to].filter((t) => !debtArrows.has(`${from} -> ${t}`)))]));
  const cycle = findCycle(sound);
  if (cycle) {
    problems.push(
      `The arrows that are not debts make a cycle: ${cycle.join(' -> ')}. Import the other way, move the shared code down, or list the imports of one of these arrows in the \`\`\`debts block.`,
    );
  }
  return problems;
}
