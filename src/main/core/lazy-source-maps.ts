/**
 * Stack traces that name the files and lines under src/ (the built files' source maps), without
 * the cost at start of Node's own source map support: with `process.setSourceMapsEnabled`
 * Node reads and parses the map of every module as it loads (about 25 ms of CPU of the headless
 * host's start, issue 16, bench start). Here a built file's map (beside it, as the build writes
 * them) is read the first time a stack names that file. A frame whose map is missing, unreadable
 * or has no entry for its position is shown as V8 shows it. A frame's function name is the
 * bundle's (esbuild may have renamed it, `boom2`), where Node would give the source's name.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A call site as V8 hands it to `Error.prepareStackTrace`. */
interface CallSite {
  getFileName(): string | undefined | null;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  toString(): string;
}

/** Turns on lazy mapping for every stack formatted in this process from now on. */
export function mapStackTracesLazily(): void {
  const maps = new Map<string, { map: SourceMap; dir: string } | null>();

  function mapOf(file: string): { map: SourceMap; dir: string } | null {
    if (maps.has(file)) return maps.get(file)!;
    let found: { map: SourceMap; dir: string } | null = null;
    try {
      const filePath = file.startsWith('file:') ? fileURLToPath(file) : file;
      if (path.isAbsolute(filePath)) {
        const payload = JSON.parse(fs.readFileSync(`${filePath}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0];
        found = { map: new SourceMap(payload), dir: path.dirname(filePath) };
      }
    } catch {
      // No map (node_modules, Node's own files) or a map that cannot be read: the frame as V8 gives it.
    }
    maps.set(file, found);
    return found;
  }

  function frameText(site: CallSite): string {
    const text = site.toString();
    try {
      return mappedText(site, text);
    } catch {
      return text;
    }
  }

  function mappedText(site: CallSite, text: string): string {
    const file = site.getFileName();
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (!file || line === null || column === null) return text;
    const mapped = mapOf(file);
    if (!mapped) return text;
    const entry = mapped.map.findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
    if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return text;
    const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : path.resolve(mapped.dir, entry.originalSource);
    return text.replace(`${file}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  }

  Error.prepareStackTrace = (error: Error, sites: CallSite[]) => {
    let header: string;
    try {
      header = Error.prototype.toString.call(error);
    } catch {
      header = 'Error';
    }
    return header + sites.map((site) => `\n    at ${frameText(site)}`).join('');
  };
}
