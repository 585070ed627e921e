/**
 * What the extraction tests share: `useExtractHarness()` gives each test of the file a fresh
 * fixture home (extract-fixture.ts) and a fake Anthropic server that answers "nothing worth
 * remembering" unless a test queues another answer, and the calls the tests make on them — run
 * an extraction of the session's transcript, read the memory directory, its index, its history
 * and the extraction store.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { indexEntries, parseIndex } from '../../../shared/index-format.js';
import { type HistoryEntry, listHistory } from '../../history/history.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import type { ModelProvider } from '../../llm/types.js';
import { type ExtractTranscriptOptions, type ExtractTranscriptResult, extractTranscript } from '../extract-memories.js';
import { ExtractionStore } from '../extraction-store.js';
import { type ExtractFixture, createExtractFixture, fakeProvider, operationsReply } from './extract-fixture.js';

export interface ExtractHarness {
  /** This test's home, project and memory directory. */
  readonly fx: ExtractFixture;
  /** This test's fake Anthropic server. */
  readonly fake: FakeAnthropic;
  /** Extract the session's transcript in apply mode with the fake model; `over` changes any option. */
  run(over?: Partial<ExtractTranscriptOptions>): Promise<ExtractTranscriptResult>;
  /** A file of the memory directory, by relative path. */
  memory(rel: string): Promise<string>;
  exists(rel: string): Promise<boolean>;
  /** The files an index points to, in order (`MEMORY.md` unless told). */
  indexFiles(rel?: string): Promise<string[]>;
  historyOf(): Promise<HistoryEntry[]>;
  store(): ExtractionStore;
  /** Append one finished turn per prompt to the session's transcript. */
  writeTurns(...prompts: string[]): Promise<void>;
}

/** A memory the model proposes in many tests: a correction worth keeping. */
export const testingMemory = {
  action: 'create',
  file: 'feedback_real_db.md',
  scope: 'private',
  type: 'feedback',
  name: 'Real database in tests',
  description: 'Integration tests hit a real Postgres, never mocks',
  body: 'Mocks hid a broken migration.\n\n**Why:** the outage in March.\n**How to apply:** use the compose database.\n',
  reason: 'a correction',
};

/** Set up and tear down a fresh fixture and fake model around each test of the calling file. */
export function useExtractHarness(): ExtractHarness {
  let fx: ExtractFixture;
  let fake: FakeAnthropic;
  let model: ModelProvider;

  beforeEach(async () => {
    fx = await createExtractFixture();
    fake = await startFakeAnthropic({ fallback: operationsReply() });
    model = await fakeProvider(fake, fx.dataDir);
  });
  afterEach(async () => {
    await fake.close();
    await fx.cleanup();
  });

  const memory = (rel: string) => fs.readFile(path.join(fx.memoryDir, rel), 'utf8');
  return {
    get fx() {
      return fx;
    },
    get fake() {
      return fake;
    },
    run: (over = {}) =>
      extractTranscript({
        home: fx.home,
        dataDir: fx.dataDir,
        env: {},
        transcriptPath: fx.transcript(),
        provider: model,
        mode: 'apply',
        trigger: 'test',
        ...over,
      }),
    memory,
    exists: (rel) =>
      fs.stat(path.join(fx.memoryDir, rel)).then(
        () => true,
        () => false,
      ),
    indexFiles: async (rel = 'MEMORY.md') => indexEntries(parseIndex(await memory(rel))).map((e) => e.file),
    historyOf: () => listHistory(fx.memoryDir, { dataDir: fx.dataDir }),
    store: () => new ExtractionStore(fx.dataDir),
    async writeTurns(...prompts) {
      const t = fx.builder();
      for (const p of prompts) t.prompt(p).assistant(`Done: ${p}`, { stopReason: 'end_turn' });
      await fs.appendFile(fx.transcript(), t.take());
    },
  };
}
