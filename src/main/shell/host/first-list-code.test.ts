/**
 * What the built headless host loads before it can answer the dashboard's first list (issue 16,
 * bench start): its entry, and what that entry and serve-app.ts await with import() as the host
 * opens (the api's front door, the app's) with everything those import statically. A dream's run,
 * team and personal sync, recall, auto memory and the other handlers load with import() once that
 * list is answered (AppContext's services, api/handlers.ts): on two cores their code took the CPU
 * the list and the page wait for.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { NODE_ENTRIES, nodeBuildOptions } from '../../../../esbuild.config.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const SERVE = NODE_ENTRIES['main/shell/host/serve']!;
/** The files whose import() the host awaits before it answers: the entry and the serve function. */
const AWAITED_AT_START = new Set([SERVE, 'src/main/shell/host/serve-app.ts']);

/** Every source and package file the host has run by the time it can answer its first list, as the build bundles them. */
async function loadedBeforeFirstList(): Promise<Set<string>> {
  const options = nodeBuildOptions();
  const { metafile } = await build({
    ...options,
    entryPoints: options.entryPoints.filter((e) => e.in === path.join(ROOT, SERVE)),
    write: false,
    sourcemap: false,
    metafile: true,
    logLevel: 'silent',
  });
  const loaded = new Set<string>();
  const queue = [SERVE];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (loaded.has(file)) continue;
    loaded.add(file);
    for (const record of metafile.inputs[file]?.imports ?? []) {
      if (record.external) continue;
      if (record.kind === 'import-statement' || (record.kind === 'dynamic-import' && AWAITED_AT_START.has(file))) queue.push(record.path);
    }
  }
  return loaded;
}

describe('the headless host before its first list', () => {
  it('has loaded the scan, the crash sweep and the first screen’s handlers, and none of the code its background services and other calls need', async () => {
    const loaded = await loadedBeforeFirstList();
    // What the first list needs (the walk above follows the host's start).
    for (const needed of [
      'src/main/app/app-context.ts',
      'src/main/memdir/scan-home.ts',
      'src/main/dream/apply/recover-dreams.ts',
      'src/main/api/projects.ts',
    ]) {
      expect(loaded, needed).toContain(needed);
    }
    const held = [
      'src/main/api/handlers.ts',
      'src/main/dream/run-dream.ts',
      'src/main/dream/gates/claude-code-dream.ts',
      'src/main/team/team-service.ts',
      'src/main/personal/personal-service.ts',
      'src/main/recall/recall-service.ts',
      'src/main/hooks/auto-memory.ts',
      'src/main/extract/extraction-service.ts',
      'src/main/llm/resolve-provider.ts',
      // Every domain's schemas: the first screen's dispatcher declares its own few calls (api/index.ts).
      'src/shared/contract/index.ts',
    ];
    const packages = ['chrono-node', 'minisearch', 'chokidar'];
    const early = [...loaded].filter((file) => held.includes(file) || packages.some((name) => file.startsWith(`node_modules/${name}/`)));
    expect(early).toEqual([]);
  });
});
