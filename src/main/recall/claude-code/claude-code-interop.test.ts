/**
 * The real Claude Code, when the pinned release is installed: it runs the recall scenario, and
 * what it sends its selector and then loads must match both the committed capture and Memdir's
 * Claude Code mode on the same memory directory. Skipped, with the reason, without the binary.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { RecallService } from '../recall-service.js';
import { SCENARIO_QUERIES } from '../test-support/claude-code-recall-scenario.js';
import { findClaudeCodeBinary } from '../../llm/test-support/real-claude-code.js';
import { CAPTURE_FIXTURE, captureClaudeCodeRecall, withoutClaudeCodeOwnParts } from '../test-support/capture-claude-code-recall.js';
import { SYNC_STORES } from '../../team/test-support/claude-code-stores-cases.js';
import {
  INVALID_STORE_VALUES,
  recordedManifest,
  STORES_RECALL_FILES,
  STORES_RECALL_FIXTURE,
  STORES_RECALL_QUERY,
  STORES_SETTING_FIXTURE,
  type StoresRecallRecording,
} from '../test-support/claude-code-stores-recall-cases.js';
import { offeredThroughLinks, RECALL_LINKS_FIXTURE, type RecallLinksRecording, writeLinksOut } from '../test-support/claude-code-links-case.js';
import { newClaudeCodeSession, recallLikeClaudeCode } from './recall-like-claude-code.js';
import { manifestMessage } from './selector-request.js';
import { folderListing, inListingOrder, RECALL_ORDER_FIXTURE, type RecallOrderFixture, stampAll, tiedFiles } from '../test-support/tied-mtimes.js';
import { CLAUDE_CODE_RECALL_CAP, scanLikeClaudeCode } from './scan-memories.js';
import {
  MODIFIED_FILES,
  MODIFIED_QUERY,
  modifiedFilesNow,
  modifiedLinesOf,
  RECALL_MODIFIED_FIXTURE,
  type RecallModifiedRecording,
  writeModifiedFiles,
} from '../test-support/claude-code-modified-case.js';

/** The files as written, before any session: what {@link modifiedFilesNow} must still read after one. */
async function writtenModifiedFiles(dir: string): Promise<Awaited<ReturnType<typeof modifiedFilesNow>>> {
  await fs.mkdir(dir, { recursive: true });
  await writeModifiedFiles(dir);
  return modifiedFilesNow(dir);
}

const STORES_RECALL_HOW =
  "src/main/recall/claude-code/claude-code-interop.test.ts ('memory-store mode'): captureClaudeCodeRecall on the recall scenario with `files` written beside it, one prompt (`query`), once with `CLAUDE_MEMORY_STORES` = `stores` (offline: never synced) and once without. Per run: the selector's 'Available memories' lines (without their '- '), sorted (files written in one clock tick tie on time, so the client's newest-first order varies), the time of a file written by the run made <time>. Seen: with the setting the selector is also offered every MEMORY.md but the memory dir's own (not one in a team folder that is no store's), the files of the setting's store folders at any depth, dot folders included (team/<mount>/…, not other team/ subfolders), and for a file whose description is missing or null the first line of text with a leading '#'s-and-space dropped, cut at 120 characters; the 200 newest still. Modelled: scan-memories.ts (recallStoreRules).";

const STORES_SETTING_HOW =
  "src/main/recall/claude-code/claude-code-interop.test.ts ('a setting it cannot use'): captureClaudeCodeRecall on the recall scenario with the store-mode recall files, one prompt, recall's server flag NOT cached, per run a value of `CLAUDE_MEMORY_STORES` in the shell (`shell`), or the valid `stores` in the user settings' env block (`settingsEnvBlock`), or none (`unset`). Per run: `instructions` (the memory files the transcript's instructions attachment loaded: MEMORY.md when the index loads), `selectorAsked` (recall requests sent), and the offered lines beyond or missing from the plain manifest (recall-stores-2.1.332.json withoutStores).";

const binary = await findClaudeCodeBinary();

describe.skipIf(!binary.found)(`recall against the real Claude Code${binary.found ? ` ${binary.version}` : ` (skipped: ${binary.reason})`}`, () => {
  let root: string;
  let captured: Awaited<ReturnType<typeof captureClaudeCodeRecall>>;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-interop-'));
    captured = await captureClaudeCodeRecall({ binary: binary.found ? binary.path : '', root: path.join(root, 'claude') });
  }, 180_000);
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('sends what the committed capture holds', async () => {
    const fixture = JSON.parse(await fs.readFile(CAPTURE_FIXTURE, 'utf8')) as {
      runs: { name: string; requests: Record<string, unknown>[]; loaded: string[][] }[];
    };
    const run = fixture.runs.find((r) => r.name === 'default-model')!;
    expect(captured.requests.map(withoutClaudeCodeOwnParts)).toEqual(run.requests.map(withoutClaudeCodeOwnParts));
    expect(captured.loaded).toEqual(run.loaded);
  });

  it('memory-store mode: what the selector is offered, with the setting and without (recorded)', async () => {
    const manifest = async (name: string, env: NodeJS.ProcessEnv) => {
      const run = await captureClaudeCodeRecall({
        binary: binary.found ? binary.path : '',
        root: path.join(root, name),
        queries: [{ query: STORES_RECALL_QUERY, answer: '{"selected_memories":[]}' }],
        env,
        files: STORES_RECALL_FILES,
      });
      return recordedManifest((run.requests[0]?.messages as { content: { text: string }[] }[])[0]!.content[0]!.text);
    };
    const seen: StoresRecallRecording = {
      client: binary.found ? binary.version : null,
      how: STORES_RECALL_HOW,
      stores: SYNC_STORES,
      files: STORES_RECALL_FILES,
      query: STORES_RECALL_QUERY,
      withoutStores: await manifest('recall-without', {}),
      withStores: await manifest('recall-with', { CLAUDE_MEMORY_STORES: SYNC_STORES }),
    };
    if (process.env.MEMDIR_RECORD_STORES_FIXTURE === '1') await fs.writeFile(STORES_RECALL_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(await fs.readFile(STORES_RECALL_FIXTURE, 'utf8')));
  }, 240_000);

  it('memory-store mode: Memdir offers what the client offers (its request, byte for byte)', async () => {
    const run = await captureClaudeCodeRecall({
      binary: binary.found ? binary.path : '',
      root: path.join(root, 'recall-with-memdir'),
      queries: [{ query: STORES_RECALL_QUERY, answer: '{"selected_memories":[]}' }],
      env: { CLAUDE_MEMORY_STORES: SYNC_STORES },
      files: STORES_RECALL_FILES,
    });
    const memdir = await recallLikeClaudeCode({
      session: newClaudeCodeSession(run.memoryDir),
      query: STORES_RECALL_QUERY,
      provider: null,
      model: String(run.requests[0]!.model),
      autoMemoryEnabled: true,
      memoryStores: { value: SYNC_STORES, from: 'CLAUDE_MEMORY_STORES' },
      recallSwitch: { state: 'on', reason: '' },
    });
    // Same files, same mtimes: the same manifest, in the same order but where times tie.
    const first = (body: Record<string, unknown>) => (body.messages as { content: { text: string }[] }[])[0]!.content[0]!.text;
    expect(recordedManifest(first(memdir.request as unknown as Record<string, unknown>))).toEqual(recordedManifest(first(run.requests[0]!)));
    expect(first(memdir.request as unknown as Record<string, unknown>).length).toBe(first(run.requests[0]!).length);
  }, 240_000);

  it('a setting it cannot use, and the setting in a settings env block: is MEMORY.md loaded, is recall on (recorded)', async () => {
    const recording = JSON.parse(await fs.readFile(STORES_RECALL_FIXTURE, 'utf8')) as StoresRecallRecording;
    const plain = new Set(recording.withoutStores);
    const once = async (name: string, opts: { env?: NodeJS.ProcessEnv; settingsEnv?: Record<string, string> }) => {
      const run = await captureClaudeCodeRecall({
        binary: binary.found ? binary.path : '',
        root: path.join(root, name),
        queries: [{ query: STORES_RECALL_QUERY, answer: '{"selected_memories":[]}' }],
        files: STORES_RECALL_FILES,
        recallFlag: false,
        ...opts,
      });
      const offered = run.requests[0] ? recordedManifest((run.requests[0].messages as { content: { text: string }[] }[])[0]!.content[0]!.text) : [];
      return {
        instructions: run.instructions,
        selectorAsked: run.requests.length,
        beyondPlain: offered.filter((l) => !plain.has(l)),
        missingFromPlain: offered.length === 0 ? [] : recording.withoutStores.filter((l) => !offered.includes(l)),
      };
    };
    const seen = {
      client: binary.found ? binary.version : null,
      how: STORES_SETTING_HOW,
      stores: SYNC_STORES,
      unset: await once('setting-unset', {}),
      shell: {} as Record<string, Awaited<ReturnType<typeof once>>>,
      settingsEnvBlock: await once('setting-env-block', { settingsEnv: { CLAUDE_MEMORY_STORES: SYNC_STORES } }),
    };
    // One at a time: the client's runs share the machine's cores.
    for (const [i, value] of INVALID_STORE_VALUES.entries()) seen.shell[value] = await once(`setting-invalid-${i}`, { env: { CLAUDE_MEMORY_STORES: value } });
    if (process.env.MEMDIR_RECORD_STORES_FIXTURE === '1') await fs.writeFile(STORES_SETTING_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(await fs.readFile(STORES_SETTING_FIXTURE, 'utf8')));
  }, 300_000);

  it("tied mtimes: offers the first 200 in the folders' own listing order, as Memdir does (review x5 F4)", async () => {
    const files = tiedFiles(230);
    const run = await captureClaudeCodeRecall({
      binary: binary.found ? binary.path : '',
      root: path.join(root, 'tied'),
      queries: [{ query: 'how do we deploy', answer: '{"selected_memories":[]}' }],
      files,
      touch: (memoryDir) => stampAll(memoryDir),
    });
    const manifest = (run.requests[0]?.messages as { content: { text: string }[] }[])[0]!.content[0]!.text;
    const offered = manifest
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => /^- (?:\[\w+\] )?(\S+) \(/.exec(l)![1]!);
    const memdir = (await scanLikeClaudeCode(run.memoryDir)).memories;
    expect(memdir.slice(0, CLAUDE_CODE_RECALL_CAP).map((m) => m.file)).toEqual(offered);
    const seen: RecallOrderFixture = {
      claudeCode: binary.found ? binary.version : '',
      how: "src/main/recall/claude-code/claude-code-interop.test.ts ('tied mtimes'): captureClaudeCodeRecall on the recall scenario plus tiedFiles(230) in r/, every file stamped one mtime (stampAll); the files of the selector's first request, against `ls -U` of each folder, depth first (links aside), and against name order.",
      candidates: memdir.length,
      offered: offered.length,
      offeredInFolderListingOrder: inListingOrder(offered, folderListing(run.memoryDir)),
      offeredInNameOrder: offered.every((f, i) => i === 0 || offered[i - 1]! < f),
    };
    if (process.env.MEMDIR_RECORD_RECALL_ORDER_FIXTURE === '1') await fs.writeFile(RECALL_ORDER_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(await fs.readFile(RECALL_ORDER_FIXTURE, 'utf8')));
  }, 240_000);

  it('links out of the memory dir: the client offers what a linked file and a linked folder hold (recorded)', async () => {
    const run = await captureClaudeCodeRecall({
      binary: binary.found ? binary.path : '',
      root: path.join(root, 'links'),
      queries: [{ query: 'how do we deploy', answer: '{"selected_memories":[]}' }],
      touch: (memoryDir) => writeLinksOut(memoryDir, path.join(root, 'links', 'outside')),
    });
    const manifest = (run.requests[0]?.messages as { content: { text: string }[] }[])[0]!.content[0]!.text;
    const seen: RecallLinksRecording = {
      claudeCode: binary.found ? binary.version : '',
      how: "src/main/recall/claude-code/claude-code-interop.test.ts ('links out'): captureClaudeCodeRecall on the recall scenario plus writeLinksOut (claude-code-links-case.ts): linked-file.md a link to a file outside the memory dir, linked/ a link to a folder outside it; the selector's first manifest lines of files reached through them.",
      offered: offeredThroughLinks(manifest),
    };
    // Memdir's Claude Code mode offers the same (scan-memories.ts follows links as the client does).
    expect(offeredThroughLinks(manifestMessage((await scanLikeClaudeCode(run.memoryDir)).memories))).toEqual(seen.offered);
    if (process.env.MEMDIR_RECORD_RECALL_LINKS_FIXTURE === '1') await fs.writeFile(RECALL_LINKS_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(await fs.readFile(RECALL_LINKS_FIXTURE, 'utf8')));
  }, 120_000);

  it('metadata.modified and the other keys Memdir keeps on edit: what the client offers and whether it writes them (recorded)', async () => {
    const run = await captureClaudeCodeRecall({
      binary: binary.found ? binary.path : '',
      root: path.join(root, 'modified'),
      queries: [MODIFIED_QUERY],
      touch: writeModifiedFiles,
    });
    const manifest = (run.requests[0]?.messages as { content: { text: string }[] }[])[0]!.content[0]!.text;
    const seen: RecallModifiedRecording = {
      claudeCode: binary.found ? binary.version : '',
      how: "src/main/recall/claude-code/claude-code-interop.test.ts ('metadata.modified'): captureClaudeCodeRecall on the recall scenario plus `files` (claude-code-modified-case.ts) written with their mtimes, one prompt whose selector answer picks mod_flat_old.md and mod_nested_future.md; `offered`: the selector's manifest lines for the files, in its order; `loaded`: what the transcript then recorded as recalled; `unchanged`: every file's bytes and mtime after the session as written.",
      files: MODIFIED_FILES,
      offered: modifiedLinesOf(manifest),
      loaded: run.loaded,
      unchanged: JSON.stringify(await modifiedFilesNow(run.memoryDir)) === JSON.stringify(await writtenModifiedFiles(path.join(root, 'modified-written'))),
    };
    // Memdir's Claude Code mode on the same folder sends the same request, byte for byte (order, times, descriptions).
    const memdir = await recallLikeClaudeCode({
      session: newClaudeCodeSession(run.memoryDir),
      query: MODIFIED_QUERY.query,
      provider: null,
      model: String(run.requests[0]!.model),
      autoMemoryEnabled: true,
      memoryStores: null,
      recallSwitch: { state: 'on', reason: '' },
    });
    expect((memdir.request!.messages[0]!.content as { text: string }[])[0]!.text).toBe(manifest);
    if (process.env.MEMDIR_RECORD_RECALL_MODIFIED_FIXTURE === '1') await fs.writeFile(RECALL_MODIFIED_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(await fs.readFile(RECALL_MODIFIED_FIXTURE, 'utf8')));
  }, 120_000);

  it('agrees with Memdir on the same memory directory: same requests, same memories loaded', async () => {
    const fake = await startFakeAnthropic();
    try {
      let answers = 0;
      fake.setHandler(() => ({ kind: 'message', text: SCENARIO_QUERIES[answers++]!.answer }));
      const dataDir = path.join(root, 'data');
      await fs.mkdir(dataDir, { recursive: true });
      await fs.writeFile(
        path.join(dataDir, 'settings.json'),
        JSON.stringify({ model: { maxRetries: 0, models: { recall: String(captured.requests[0]!.model) } } }),
      );
      // Claude Code's own home, read in place: the memory dir it just used.
      const home = path.dirname(path.dirname(path.dirname(captured.memoryDir)));
      const service = new RecallService({
        home,
        dataDir,
        env: { PATH: path.join(root, 'no-bin'), ANTHROPIC_API_KEY: 'sk-ant-api03-memdir-test-key', ANTHROPIC_BASE_URL: fake.url },
      });
      let session: string | null = null;
      const loaded: string[][] = [];
      for (const { query } of SCENARIO_QUERIES) {
        const result = await service.claudeCode({ project: path.basename(path.dirname(captured.memoryDir)), query, session });
        session = result.session.id;
        loaded.push(result.selected.map((s) => s.file));
      }
      expect(fake.messageRequests().map((r) => r.body)).toEqual(captured.requests.map(withoutClaudeCodeOwnParts));
      expect(loaded).toEqual(captured.loaded);
    } finally {
      await fake.close();
    }
  });
});
