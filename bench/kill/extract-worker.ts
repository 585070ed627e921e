/**
 * Child process of the `kill` bench: one real extraction in apply mode (the model is the fake
 * Anthropic server the bench runs), until it ends or is SIGKILLed. Prints "ready" once loaded and
 * starts on a line on stdin, so the bench kills it at a moment of its choosing.
 *   extract-worker.ts <home> <dataDir> <transcript> <fakeUrl>
 */
import { once } from 'node:events';
import { extractTranscript } from '../../src/main/extract/extract-memories.js';
import { resolveProvider } from '../../src/main/llm/resolve-provider.js';
import { defaultAppSettings } from '../../src/main/settings/app-settings.js';

const [home = '', dataDir = '', transcriptPath = '', fakeUrl = ''] = process.argv.slice(2);
const settings = defaultAppSettings();
settings.model.provider = 'anthropic';
settings.model.maxRetries = 0;
settings.model.timeoutMs = 10_000;
const provider = await resolveProvider(settings, { ANTHROPIC_API_KEY: 'sk-ant-api03-bench-key-not-real', ANTHROPIC_BASE_URL: fakeUrl }, { dataDir });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
const result = await extractTranscript({ home, dataDir, env: {}, transcriptPath, provider, mode: 'apply', trigger: 'bench', maxTurnsPerRead: 2 });
process.stdout.write(`done ${result.outcomes.length}\n`);
