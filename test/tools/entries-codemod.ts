/**
 * Front doors and the core floor (issue 17, items 1–2), as a codemod that can be re-run on any
 * checkout: `npx tsx test/tools/entries-codemod.ts` (`--dry-run` prints the summary and writes
 * nothing). It is idempotent: a second run finds nothing to do.
 *
 *   1. The safe file system moves to the floor: `src/main/memdir/{safe-fs,confined-path}.ts` (and
 *      safe-fs's test) go to `src/main/core/` with `git mv`, every import of them in the repository
 *      is rewritten (relative paths recomputed, `.js` kept), memdir's entry stops re-exporting them
 *      and whoever imported those names from it imports them from core.
 *   2. Under src/main, product code (not `*.test.ts`, not `test-support/`) that imports a private
 *      file of a capability it is not part of — any file under `src/main/<capability>/` other than
 *      its `index.ts` — imports that capability's `index.js` instead, and the names it takes are
 *      added to that entry (`export { a, type B } from './file.js';`, merged with the lines already
 *      there). core, api, app and shell are not capabilities: nobody is sent to a front door of
 *      theirs. The importers are every folder of src/main, app and shell included: they sit above the
 *      capabilities and, like the api and the CLI, reach them only through their entries.
 *   3. It prints what it did: imports rewritten, names added per entry, and the imports kept as
 *      exceptions (EXCEPTIONS below, each with its reason, marked for lint in the file).
 *
 * Tests and test-support keep importing private files: they test those files.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const REPO = path.resolve(import.meta.dirname, '../..');
const DRY_RUN = process.argv.includes('--dry-run');

/** Files that move to the floor, from → to (relative to the repository). */
const MOVES: ReadonlyMap<string, string> = new Map([
  ['src/main/memdir/safe-fs.ts', 'src/main/core/safe-fs.ts'],
  ['src/main/memdir/safe-fs.test.ts', 'src/main/core/safe-fs.test.ts'],
  ['src/main/memdir/confined-path.ts', 'src/main/core/confined-path.ts'],
]);

/** Folders of src/main that are not capabilities: never a front door the codemod sends anyone to. */
const NOT_CAPABILITIES = new Set(['core', 'api', 'app', 'shell']);

/**
 * Imports that keep pointing at a capability's file, with the reason. The codemod leaves them and
 * puts an `eslint-disable-next-line` with the reason above each, so lint accepts exactly these.
 */
const EXCEPTIONS: readonly { from: string; to: string; why: string }[] = [
  {
    from: 'src/main/hook-spool/run-hook.ts',
    to: 'src/main/session/session-state.ts',
    why: "the hook process loads hook-spool alone (issue 16): session's entry would bundle all of session, extract and llm into every hook (+1.3 MB)",
  },
];

/** The lint rule that holds capabilities to each other's front doors (eslint.config.js). */
const LINT_RULE = 'memdir/front-doors';

// ---------------------------------------------------------------------------------------------
// Files, paths and specifiers

const posix = (file: string): string => file.split(path.sep).join('/');

/** Every TypeScript file git tracks (so node_modules, out/ and fixtures' copies are left alone), plus any that exist untracked under src/. */
function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.tsx', '*.mts', '*.cts'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .filter(Boolean)
    .filter((file) => fs.existsSync(path.join(REPO, file)) && !file.startsWith('test/fixtures/'));
}

/** The file a relative specifier names: `./x.js` is x.ts (or x.tsx) under NodeNext, a folder its index. Null when none exists. */
function resolveRelative(fromFile: string, specifier: string): string | null {
  const target = path.resolve(path.dirname(path.join(REPO, fromFile)), specifier);
  const stem = target.replace(/\.(js|jsx|ts|tsx|mjs|cjs)$/, '');
  const candidates = [`${stem}.ts`, `${stem}.tsx`, target, path.join(target, 'index.ts'), path.join(target, 'index.tsx')];
  const found = candidates.map((c) => posix(path.relative(REPO, c))).find(exists);
  return found ?? null;
}

/** The specifier `fromFile` writes for `toFile`, in the style of `was` (a `.js` suffix when it had one). */
function specifierFor(fromFile: string, toFile: string, was: string): string {
  let rel = posix(path.relative(path.dirname(fromFile), toFile));
  if (!rel.startsWith('.')) rel = `./${rel}`;
  const suffix = /\.(js|jsx|ts|tsx)$/.exec(was)?.[0];
  const stem = rel.replace(/\.(ts|tsx)$/, '');
  return suffix === '.js' || suffix === '.jsx' ? `${stem}${suffix}` : suffix ? rel : stem;
}

/** A file of the working copy: written by the codemod, or on disk and not moved away. */
function exists(file: string): boolean {
  if (texts.has(file)) return true;
  if (gone.has(file)) return false;
  const full = path.join(REPO, file);
  return fs.existsSync(full) && fs.statSync(full).isFile();
}

const isTest = (file: string): boolean => /\.test\.tsx?$/.test(file) || file.split('/').includes('test-support') || file.endsWith('.d.ts');

/** The folder of src/main a file is in (`memdir` for src/main/memdir/x/y.ts), or null outside src/main's folders. */
function folderOf(file: string): string | null {
  const parts = file.split('/');
  return parts[0] === 'src' && parts[1] === 'main' && parts.length > 3 ? parts[2]! : null;
}

const entryOf = (capability: string): string => `src/main/${capability}/index.ts`;

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/** Every module specifier literal in a file: imports, `export … from`, `import()` with a plain string, `import('…')` types. */
function specifierLiterals(source: ts.SourceFile): ts.StringLiteralLike[] {
  const found: ts.StringLiteralLike[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** The whole lines a statement takes (its leading comments stay), so deleting it leaves no blank line. */
function statementLines(source: ts.SourceFile, node: ts.Node): { start: number; end: number } {
  const text = source.text;
  const start = node.getStart(source);
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  let end = node.getEnd();
  if (text[end] === '\n') end += 1;
  return { start: lineStart, end };
}

/** One name a declaration imports or exports: `name` as the module exports it, `local` as written here, type-only or not. */
interface Name {
  name: string;
  local: string;
  isType: boolean;
}

const sortNames = (names: Name[]): Name[] =>
  [...names].sort((a, b) => a.local.toLowerCase().localeCompare(b.local.toLowerCase()) || a.local.localeCompare(b.local));

const nameText = ({ name, local, isType }: Name): string => `${isType ? 'type ' : ''}${name === local ? name : `${name} as ${local}`}`;

/** The named specifiers of `import { … }` / `export { … }`, or null for a default, a namespace, `export *` or a bare import. */
function namesOf(node: ts.ImportDeclaration | ts.ExportDeclaration): Name[] | null {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) return null;
    return clause.namedBindings.elements.map((el) => ({
      name: (el.propertyName ?? el.name).text,
      local: el.name.text,
      isType: clause.isTypeOnly || el.isTypeOnly,
    }));
  }
  if (!node.exportClause || !ts.isNamedExports(node.exportClause)) return null;
  return node.exportClause.elements.map((el) => ({
    name: (el.propertyName ?? el.name).text,
    local: el.name.text,
    isType: node.isTypeOnly || el.isTypeOnly,
  }));
}

const typeOnlyDeclaration = (node: ts.ImportDeclaration | ts.ExportDeclaration): boolean =>
  ts.isImportDeclaration(node) ? !!node.importClause?.isTypeOnly : node.isTypeOnly;

/** `import { a, type B } from 'x';`, or `import type { … }` when every name is a type and the original was. */
function declarationText(kind: 'import' | 'export', names: Name[], specifier: string, typeOnly: boolean): string {
  const list = sortNames(names)
    .map((n) => nameText(typeOnly ? { ...n, isType: false } : n))
    .join(', ');
  return `${kind} ${typeOnly ? 'type ' : ''}{ ${list} } from '${specifier}';`;
}

// ---------------------------------------------------------------------------------------------
// Working copy: files read once, edited in memory, written at the end

const texts = new Map<string, string>();
/** Files moved away (a dry run leaves them on disk). */
const gone = new Set<string>();
const read = (file: string): string => texts.get(file) ?? fs.readFileSync(path.join(REPO, file), 'utf8');
const write = (file: string, text: string): void => void texts.set(file, text);
const changed = new Set<string>();
function save(file: string, text: string): void {
  if (text !== read(file)) {
    write(file, text);
    changed.add(file);
  }
}

// ---------------------------------------------------------------------------------------------
// 1. The safe fs moves to core

function moveToCore(files: string[]): { moved: string[]; rewritten: number } {
  const pending = [...MOVES].filter(([from]) => fs.existsSync(path.join(REPO, from)));
  if (pending.length === 0) return { moved: [], rewritten: 0 };
  const moved = new Map(pending);
  const to = (file: string): string => moved.get(file) ?? file;
  let rewritten = 0;
  const after = new Map<string, string>();
  for (const file of files) {
    const text = read(file);
    const edits: Edit[] = [];
    for (const literal of specifierLiterals(parse(file, text))) {
      if (!literal.text.startsWith('.')) continue;
      const target = resolveRelative(file, literal.text);
      if (!target || (to(file) === file && to(target) === target)) continue;
      const specifier = specifierFor(to(file), to(target), literal.text);
      if (specifier === literal.text) continue;
      edits.push({ start: literal.getStart() + 1, end: literal.getEnd() - 1, text: specifier });
      rewritten += 1;
    }
    if (edits.length || moved.has(file)) after.set(file, applyEdits(text, edits));
  }
  for (const [from, dest] of moved) {
    if (!DRY_RUN) execFileSync('git', ['mv', from, dest], { cwd: REPO });
    gone.add(from);
  }
  for (const [file, text] of after) {
    texts.set(to(file), text);
    changed.add(to(file));
  }
  return { moved: [...moved.keys()], rewritten };
}

/** Entries stop re-exporting what lives in core now; their importers import it from core. Returns how many imports were split. */
function stopReexportingCore(files: string[]): number {
  const floor = new Set(MOVES.values());
  // entry file → name exported → the core file it comes from
  const dropped = new Map<string, Map<string, string>>();
  for (const entry of files.filter((f) => /^src\/main\/[^/]+\/index\.ts$/.test(f) && !NOT_CAPABILITIES.has(folderOf(f)!))) {
    const source = parse(entry, read(entry));
    const edits: Edit[] = [];
    for (const statement of source.statements) {
      if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const target = resolveRelative(entry, statement.moduleSpecifier.text);
      if (!target || !floor.has(target)) continue;
      for (const { local } of namesOf(statement) ?? []) {
        if (!dropped.has(entry)) dropped.set(entry, new Map());
        dropped.get(entry)!.set(local, target);
      }
      edits.push({ ...statementLines(source, statement), text: '' });
    }
    save(entry, applyEdits(read(entry), edits));
  }
  if (dropped.size === 0) return 0;
  let split = 0;
  for (const file of files) {
    const text = read(file);
    const source = parse(file, text);
    const edits: Edit[] = [];
    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
      if (!statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier) || !statement.moduleSpecifier.text.startsWith('.')) continue;
      const from = dropped.get(resolveRelative(file, statement.moduleSpecifier.text) ?? '');
      const names = from && namesOf(statement);
      if (!from || !names || !names.some((n) => from.has(n.name))) continue;
      const kind = ts.isImportDeclaration(statement) ? 'import' : 'export';
      const typeOnly = typeOnlyDeclaration(statement);
      const was = statement.moduleSpecifier.text;
      const stay = names.filter((n) => !from.has(n.name));
      const leave = new Map<string, Name[]>();
      for (const n of names.filter((n) => from.has(n.name))) leave.set(from.get(n.name)!, [...(leave.get(from.get(n.name)!) ?? []), n]);
      const lines = [
        ...(stay.length ? [declarationText(kind, stay, was, typeOnly)] : []),
        ...[...leave].map(([core, moving]) => declarationText(kind, moving, specifierFor(file, core, was), typeOnly)),
      ];
      edits.push({ start: statement.getStart(source), end: statement.getEnd(), text: lines.join('\n') });
      split += 1;
    }
    save(file, applyEdits(text, edits));
  }
  return split;
}

// ---------------------------------------------------------------------------------------------
// 2. Capabilities meet at front doors

/** A name an entry must export: from which of its files, and whether only as a type. */
interface Needed {
  module: string;
  name: string;
  isType: boolean;
}

interface EntryReport {
  added: string[];
}

function throughFrontDoors(files: string[]): { rewritten: number; kept: string[]; entries: Map<string, EntryReport>; problems: string[] } {
  const needs = new Map<string, Needed[]>(); // capability → names its entry must export
  const problems: string[] = [];
  const kept: string[] = [];
  let rewritten = 0;
  const exception = (from: string, to: string) => EXCEPTIONS.find((e) => e.from === from && e.to === to);
  const privateTarget = (file: string, target: string | null): string | null => {
    const capability = target && folderOf(target);
    if (!capability || NOT_CAPABILITIES.has(capability) || capability === folderOf(file) || target === entryOf(capability)) return null;
    return capability;
  };

  for (const file of files.filter((f) => folderOf(f) !== null && !isTest(f))) {
    const text = read(file);
    const source = parse(file, text);
    const edits: Edit[] = [];
    // specifier of an entry → declarations now pointing at it (merged into one per kind)
    const merged = new Map<string, { kind: 'import' | 'export'; typeOnly: boolean; specifier: string; nodes: ts.Statement[]; names: Name[] }>();
    const need = (capability: string, target: string, names: Name[]) => {
      const module = specifierFor(entryOf(capability), target, './x.js');
      for (const { name, isType } of names) needs.set(capability, [...(needs.get(capability) ?? []), { module, name, isType }]);
    };

    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
      if (!statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier) || !statement.moduleSpecifier.text.startsWith('.')) continue;
      const target = resolveRelative(file, statement.moduleSpecifier.text);
      const kind = ts.isImportDeclaration(statement) ? 'import' : 'export';
      const typeOnly = typeOnlyDeclaration(statement);
      // Declarations already at an entry join the ones rewritten to it.
      const entryCapability = target && folderOf(target);
      if (entryCapability && target === entryOf(entryCapability) && entryCapability !== folderOf(file)) {
        const names = namesOf(statement);
        if (names) {
          const key = `${kind} ${statement.moduleSpecifier.text}`;
          const group = merged.get(key) ?? { kind, typeOnly, specifier: statement.moduleSpecifier.text, nodes: [], names: [] };
          group.typeOnly &&= typeOnly;
          group.nodes.push(statement);
          group.names.push(...names);
          merged.set(key, group);
        }
        continue;
      }
      const capability = privateTarget(file, target);
      if (!capability) continue;
      const why = exception(file, target!);
      if (why) {
        kept.push(`${file} -> ${target} (${why.why})`);
        const lineStart = text.lastIndexOf('\n', statement.getStart(source) - 1) + 1;
        const previous = text.slice(text.lastIndexOf('\n', lineStart - 2) + 1, lineStart);
        if (!previous.includes(`eslint-disable-next-line ${LINT_RULE}`)) {
          edits.push({ start: lineStart, end: lineStart, text: `// eslint-disable-next-line ${LINT_RULE} -- ${why.why}\n` });
        }
        continue;
      }
      const names = namesOf(statement);
      if (!names) {
        problems.push(`${file}: "${statement.getText(source)}" is not a list of names; give it a front door by hand or list it in EXCEPTIONS.`);
        continue;
      }
      need(capability, target!, names);
      const specifier = specifierFor(file, entryOf(capability), statement.moduleSpecifier.text);
      const key = `${kind} ${specifier}`;
      const group = merged.get(key) ?? { kind, typeOnly, specifier, nodes: [], names: [] };
      group.typeOnly &&= typeOnly;
      group.nodes.push(statement);
      group.names.push(...names);
      merged.set(key, group);
      rewritten += 1;
    }
    for (const group of merged.values()) {
      const changes = group.nodes.some((node) => {
        const spec = (node as ts.ImportDeclaration).moduleSpecifier as ts.StringLiteral;
        return spec.text !== group.specifier;
      });
      // Only declarations this run rewrites are merged (one per entry, `type` marking the type-only names).
      if (!changes) continue;
      const unique = [...new Map(group.names.map((n) => [`${n.name} ${n.local}`, n])).values()].map((n) => ({
        ...n,
        isType: n.isType && group.names.filter((o) => o.name === n.name && o.local === n.local).every((o) => o.isType),
      }));
      const [first, ...rest] = group.nodes;
      edits.push({ start: first!.getStart(source), end: first!.getEnd(), text: declarationText(group.kind, unique, group.specifier, group.typeOnly) });
      for (const node of rest) edits.push({ ...statementLines(source, node), text: '' });
    }
    // Other module specifiers in the file (import() and import('…') types) that reach a private file.
    for (const literal of specifierLiterals(source)) {
      const parent = literal.parent;
      if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || !literal.text.startsWith('.')) continue;
      const target = resolveRelative(file, literal.text);
      const capability = privateTarget(file, target);
      if (!capability || exception(file, target!)) continue;
      const typeNode = parent.parent;
      if (ts.isImportTypeNode(typeNode) && typeNode.qualifier) {
        let first: ts.EntityName = typeNode.qualifier;
        while (ts.isQualifiedName(first)) first = first.left;
        need(capability, target!, [{ name: first.text, local: first.text, isType: true }]);
        edits.push({ start: literal.getStart() + 1, end: literal.getEnd() - 1, text: specifierFor(file, entryOf(capability), literal.text) });
        rewritten += 1;
      } else {
        problems.push(`${file}: import('${literal.text}') reaches a private file of ${capability}; give it a front door by hand or list it in EXCEPTIONS.`);
      }
    }
    save(file, applyEdits(text, edits));
  }

  const entries = new Map<string, EntryReport>();
  for (const [capability, wanted] of [...needs].sort(([a], [b]) => a.localeCompare(b))) {
    const report = addToEntry(capability, wanted, problems);
    if (report.added.length) entries.set(entryOf(capability), report);
  }
  return { rewritten, kept, entries, problems };
}

const NEW_ENTRY = (capability: string) =>
  `/**\n * The ${capability} capability's front door (STYLE.md "The house"): code outside this folder imports only from here.\n */\n`;

/** Adds the names to a capability's index.ts: merged into its `export { … } from './file.js'` lines, a new line per new file. */
function addToEntry(capability: string, wanted: Needed[], problems: string[]): EntryReport {
  const entry = entryOf(capability);
  const existed = exists(entry);
  const text = existed ? read(entry) : NEW_ENTRY(capability);
  const source = parse(entry, text);
  // What the entry exports today: name → its file, type-only or not, and the declaration.
  const declarations: { node: ts.ExportDeclaration; module: string; typeOnly: boolean; names: Name[]; touched: boolean }[] = [];
  const exported = new Map<string, { module: string; isType: boolean; declaration: (typeof declarations)[number] | null }>();
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      const names = namesOf(statement);
      if (!names) continue;
      const target = resolveRelative(entry, statement.moduleSpecifier.text);
      const module = target ? specifierFor(entry, target, './x.js') : statement.moduleSpecifier.text;
      const declaration = { node: statement, module, typeOnly: statement.isTypeOnly, names, touched: false };
      declarations.push(declaration);
      for (const n of names) exported.set(n.local, { module, isType: n.isType, declaration });
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      // Something the entry declares itself (`export const …`, `export function …`).
      const names = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => d.name.getText(source))
        : [(statement as ts.DeclarationStatement).name?.getText(source) ?? ''];
      for (const name of names) exported.set(name, { module: '.', isType: false, declaration: null });
    }
  }
  const fresh = new Map<string, Name[]>(); // module → names for new lines
  const added: string[] = [];
  // A name used as a value anywhere is exported as a value.
  const byName = new Map<string, Needed>();
  for (const n of wanted) {
    const key = `${n.module} ${n.name}`;
    const seen = byName.get(key);
    byName.set(key, seen ? { ...seen, isType: seen.isType && n.isType } : n);
  }
  for (const { module, name, isType } of [...byName.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const known = exported.get(name);
    if (known) {
      if (known.module !== module) {
        problems.push(
          `${entry} already exports ${name} from ${known.module}, and someone imports it from ${module}: rename one or list the import in EXCEPTIONS.`,
        );
        continue;
      }
      if (known.isType && !isType && known.declaration) {
        // A type-only export that a value import now needs.
        const declaration = known.declaration;
        declaration.names = declaration.names.filter((n) => n.local !== name);
        declaration.touched = true;
        const home = declarations.find((d) => d.module === module && !d.typeOnly && d !== declaration);
        if (home) {
          home.names.push({ name, local: name, isType: false });
          home.touched = true;
        } else if (!declaration.typeOnly) {
          declaration.names.push({ name, local: name, isType: false });
        } else {
          fresh.set(module, [...(fresh.get(module) ?? []), { name, local: name, isType: false }]);
        }
        exported.set(name, { module, isType: false, declaration });
        added.push(name);
      }
      continue;
    }
    const home = declarations.find((d) => d.module === module && (!d.typeOnly || isType));
    if (home) {
      home.names.push({ name, local: name, isType: isType && !home.typeOnly });
      home.touched = true;
    } else {
      fresh.set(module, [...(fresh.get(module) ?? []), { name, local: name, isType }]);
    }
    exported.set(name, { module, isType, declaration: home ?? null });
    added.push(`${isType ? 'type ' : ''}${name}`);
  }
  const edits: Edit[] = [];
  for (const d of declarations.filter((d) => d.touched)) {
    if (d.names.length === 0) edits.push({ ...statementLines(source, d.node), text: '' });
    else
      edits.push({
        start: d.node.getStart(source),
        end: d.node.getEnd(),
        text: declarationText('export', d.names, d.node.moduleSpecifier!.getText(source).slice(1, -1), d.typeOnly),
      });
  }
  // New lines go after the last export line whose file sorts before theirs (else before the first statement), in order of their files.
  const inserts = new Map<number, string[]>();
  for (const [module, names] of [...fresh].sort(([a], [b]) => a.localeCompare(b))) {
    const before = declarations.filter((d) => d.module.localeCompare(module) < 0).pop();
    const first = source.statements[0];
    const at = before ? statementLines(source, before.node).end : first ? statementLines(source, first).start : text.length;
    inserts.set(at, [...(inserts.get(at) ?? []), `${declarationText('export', names, module, false)}\n`]);
  }
  for (const [at, lines] of inserts) edits.push({ start: at, end: at, text: lines.join('') });
  if (existed) save(entry, applyEdits(text, edits));
  else {
    texts.set(entry, applyEdits(text, edits));
    changed.add(entry);
  }
  return { added };
}

// ---------------------------------------------------------------------------------------------

function main(): void {
  const move = moveToCore(trackedFiles());
  const files = [...new Set([...trackedFiles().map((f) => [...MOVES].find(([from]) => from === f)?.[1] ?? f), ...texts.keys()])].filter(
    (f) => texts.has(f) || fs.existsSync(path.join(REPO, f)),
  );
  const split = stopReexportingCore(files);
  const doors = throughFrontDoors(files);

  if (!DRY_RUN) {
    for (const file of changed) fs.writeFileSync(path.join(REPO, file), texts.get(file)!);
  }
  const lines = [
    `Moved to src/main/core: ${move.moved.length ? move.moved.join(', ') : 'nothing (already there)'}; ${move.rewritten} specifiers rewritten for the move.`,
    `Imports of core's files through a capability's entry, now from core: ${split}.`,
    `Imports of a capability's private file rewritten to its front door: ${doors.rewritten}.`,
    ...[...doors.entries].map(([entry, { added }]) => `  ${entry}: +${added.length} (${added.join(', ')})`),
    `Kept as exceptions: ${doors.kept.length}${doors.kept.map((k) => `\n  ${k}`).join('')}`,
    `Files changed: ${changed.size}${DRY_RUN ? ' (dry run: nothing written)' : ''}.`,
  ];
  console.log(lines.join('\n'));
  if (doors.problems.length) {
    console.error(`\nProblems (left as they were):\n${doors.problems.map((p) => `  ${p}`).join('\n')}`);
    process.exitCode = 1;
  }
  if (!DRY_RUN && changed.size) console.log('\nNow: npx prettier --write on the files changed, then npx tsc -p tsconfig.json --noEmit.');
}

main();
