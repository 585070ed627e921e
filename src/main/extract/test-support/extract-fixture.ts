/**
 * A tmp Claude Code home with one project (a real folder as its cwd), its memory directory and
 * a data dir, plus the model provider pointed at the fake Anthropic server — what the
 * extraction, session and hook tests share.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sanitizeDirName } from '../../../shared/sanitize.js';
import type { FakeAnthropic, FakeReply } from '../../llm/test-support/fake-anthropic.js';
import { OfflineProvider, resolveProvider } from '../../llm/resolve-provider.js';
import type { ModelProvider } from '../../llm/types.js';
import { defaultAppSettings } from '../../settings/app-settings.js';
import { TranscriptBuilder } from '../../transcripts/test-support/transcript-builder.js';

export interface ExtractFixture {
  root: string;
  home: string;
  dataDir: string;
  /** The project's working directory (a real folder). */
  cwd: string;
  /** `projects/<dir>` name, its folder and memory dir. */
  dir: string;
  projectDir: string;
  memoryDir: string;
  /** `<projectDir>/<sessionId>.jsonl`. */
  transcript(sessionId?: string): string;
  builder(sessionId?: string): TranscriptBuilder;
  cleanup(): Promise<void>;
}

/** A home with one project whose memory holds one feedback memory in its index. */
export async function createExtractFixture(prefix = 'memdir-extract-'): Promise<ExtractFixture> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'repo');
  await fs.mkdir(cwd, { recursive: true });
  const dir = sanitizeDirName(cwd);
  const projectDir = path.join(home, 'projects', dir);
  const memoryDir = path.join(projectDir, 'memory');
  await fs.mkdir(memoryDir, { recursive: true });
  await fs.writeFile(
    path.join(memoryDir, 'feedback_sql.md'),
    '---\nname: No ORM\ndescription: We write SQL by hand\ntype: feedback\n---\nThe ORM hid N+1 queries.\n',
  );
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [No ORM](feedback_sql.md) — We write SQL by hand\n');
  return {
    root,
    home,
    dataDir: path.join(root, 'data'),
    cwd,
    dir,
    projectDir,
    memoryDir,
    transcript: (sessionId = 'session-1') => path.join(projectDir, `${sessionId}.jsonl`),
    builder: (sessionId = 'session-1') => new TranscriptBuilder({ sessionId, cwd, uuidPrefix: sessionId }),
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
}

/** The Anthropic provider against the fake server: no retries, a short timeout. */
export function fakeProvider(fake: FakeAnthropic, dataDir: string): Promise<ModelProvider> {
  const settings = defaultAppSettings();
  settings.model.provider = 'anthropic';
  settings.model.maxRetries = 0;
  settings.model.timeoutMs = 5_000;
  return resolveProvider(settings, { ANTHROPIC_API_KEY: 'sk-ant-api03-test-key-not-real', ANTHROPIC_BASE_URL: fake.url }, { dataDir });
}

/** The offline provider (no model). */
export function offlineProvider(): ModelProvider {
  return new OfflineProvider(defaultAppSettings().model.models, 'Offline mode for the test.');
}

/** A model answer holding these operations. */
export function operationsReply(...operations: unknown[]): FakeReply {
  return { kind: 'message', text: JSON.stringify({ operations }), usage: { input_tokens: 1200, output_tokens: 80 } };
}

/** The turn texts the fake model was sent, one string per request. */
export function sentPrompts(fake: FakeAnthropic): string[] {
  return fake.messageRequests().map((r) => JSON.stringify(r.body?.messages ?? ''));
}
