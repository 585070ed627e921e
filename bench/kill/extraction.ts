/**
 * Kills during extraction: a real extraction in apply mode (bench/kill/extract-worker.ts) of a
 * transcript of several turns, each asking to remember one fact, with the fake Anthropic server
 * proposing one memory per fact it is sent; SIGKILLed at a random moment. Then the next start
 * runs the extraction again to its end, and: every fact is a memory, written whole, listed once
 * in the index (none lost, none doubled), the journal and cursor are readable and say nothing is
 * left to do, and the history passes `git fsck` and holds what is on disk.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { extractTranscript } from '../../src/main/extract/extract-memories.js';
import { EXTRACT_CONSUMER } from '../../src/main/extract/extraction-run.js';
import { ExtractionStore } from '../../src/main/extract/extraction-store.js';
import { createExtractFixture, fakeProvider, operationsReply } from '../../src/main/extract/test-support/extract-fixture.js';
import { recordSnapshot } from '../../src/main/history/history.js';
import { fsckHistory } from '../../src/main/history/test-support/crash-check.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../src/main/llm/test-support/fake-anthropic.js';
import { CursorStore } from '../../src/main/transcripts/cursor-store.js';
import { indexEntries, parseIndex } from '../../src/shared/index-format.js';
import { type KillTally, bundleWorker, emptyTally, note, releaseAndKill, startWorker } from './harness.js';

const FACTS = 6;

/** The memory the fake model proposes for fact `n`. */
function factMemory(n: number): { file: string; body: string } {
  return { file: `project_fact_${n}.md`, body: `Fact ${n} holds for the payments service: retries back off after ${n * 100} ms.\n` };
}

/** The fake model: one create operation per fact named in the turns it is sent. */
function answerFacts(fake: FakeAnthropic): void {
  fake.setHandler((request) => {
    const turns = JSON.stringify(request.body?.messages ?? '');
    const facts = [...new Set([...turns.matchAll(/REMEMBER-FACT-(\d+)/g)].map((m) => Number(m[1])))];
    return operationsReply(
      ...facts.map((n) => ({
        action: 'create',
        file: factMemory(n).file,
        scope: 'private',
        type: 'project',
        name: `Fact ${n}`,
        description: `Payments retry fact ${n}`,
        body: factMemory(n).body,
        reason: 'a fact',
      })),
    );
  });
}

export async function killExtraction(kills: number, random: () => number): Promise<KillTally> {
  const tally = emptyTally();
  const bundle = await bundleWorker('bench/kill/extract-worker.ts');
  const fake = await startFakeAnthropic();
  answerFacts(fake);
  let duration = 0;
  try {
    for (let i = 0; i <= kills; i++) {
      const fx = await createExtractFixture('memdir-kill-extract-');
      try {
        const t = fx.builder();
        for (let n = 1; n <= FACTS; n++) t.prompt(`Please keep this: REMEMBER-FACT-${n}.`).assistant(`Noted fact ${n}.`, { stopReason: 'end_turn' });
        await fs.writeFile(fx.transcript(), t.take());
        const worker = await startWorker(bundle, [fx.home, fx.dataDir, fx.transcript(), fake.url]);
        // The first run is not killed: it measures how long a whole extraction takes here.
        const start = performance.now();
        const ended = await releaseAndKill(worker, i === 0 ? 60_000 : random() * duration * 1.1, { group: random() < 0.3 });
        if (i === 0) {
          duration = performance.now() - start;
          if (ended !== 'finished') note(tally, 'crashes', `the calibration run did not finish: ${worker.stderr().slice(0, 300)}`);
          continue;
        }
        if (ended === 'killed') tally.kills++;
        else if (ended === 'finished') tally.finished++;
        else note(tally, 'crashes', `the extraction died on its own: ${worker.stderr().slice(0, 300)}`);

        // The next start: the extraction runs again, to its end.
        const provider = await fakeProvider(fake, fx.dataDir);
        try {
          const store = new ExtractionStore(fx.dataDir);
          if ((await store.loadJournal(fx.transcript())) === 'unreadable') note(tally, 'untruthful', 'the extraction journal left by the kill is unreadable');
          const cursor = await new CursorStore(fx.dataDir).load(fx.transcript(), EXTRACT_CONSUMER);
          if (cursor.status === 'unreadable') note(tally, 'untruthful', `the extraction cursor left by the kill is unreadable: ${cursor.reason}`);
          const result = await extractTranscript({
            home: fx.home,
            dataDir: fx.dataDir,
            env: {},
            transcriptPath: fx.transcript(),
            provider,
            mode: 'apply',
            trigger: 'bench',
          });
          if (result.pending) note(tally, 'untruthful', 'the rerun says turns are still pending');
          if (await store.loadJournal(fx.transcript())) note(tally, 'untruthful', 'a journal is left after the rerun finished');
          const index = indexEntries(parseIndex(await fs.readFile(path.join(fx.memoryDir, 'MEMORY.md'), 'utf8'))).map((e) => e.file);
          for (let n = 1; n <= FACTS; n++) {
            const { file, body } = factMemory(n);
            const text = await fs.readFile(path.join(fx.memoryDir, file), 'utf8').catch(() => null);
            if (text === null) note(tally, 'losses', `fact ${n} was never written (${file})`);
            else if (!text.endsWith(body)) note(tally, 'losses', `${file} is torn`);
            const pointers = index.filter((f) => f === file).length;
            if (pointers !== 1) note(tally, 'losses', `${file} has ${pointers} pointers in MEMORY.md`);
          }
          await fsckHistory(fx.dataDir, true).catch((error: Error) => note(tally, 'history', error.message.split('\n')[0]!));
          if ((await recordSnapshot(fx.memoryDir, { source: 'fix', summary: 'Left unrecorded', dataDir: fx.dataDir })) !== null)
            note(tally, 'history', 'a change on disk was not in history after the rerun');
        } catch (error) {
          note(tally, 'crashes', `the next start failed: ${(error as Error).message.split('\n')[0]}`);
        }
      } finally {
        await fx.cleanup();
      }
    }
  } finally {
    await fake.close();
  }
  return tally;
}
