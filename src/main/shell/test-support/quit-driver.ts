/**
 * The desktop app's quit as its own process, for the test that cuts a save with it: the real app
 * context and dispatcher behind a CallGate (as main.ts wires them), saving one memory over and
 * over (argv: home, data dir, project dir, memory dir, file, ms until the quit). Before each save
 * it prints `intend <body>`; at the quit it closes with a cap of 0 — whatever is in flight is cut
 * — prints `cut <what was running, JSON>` and ends the process, as Electron's `app.exit` does.
 */
import { randomBytes } from 'node:crypto';
import { AppContext } from '../../app/app-context.js';
import { createAppDispatcher } from '../../api/index.js';
import { CallGate } from '../electron/call-gate.js';
import { callWords } from '../electron/call-words.js';
import { closeWithin } from '../electron/quit.js';

const [home = '', dataDir = '', dir = '', memoryDir = '', file = '', afterMs = '0'] = process.argv.slice(2);
const ctx = await AppContext.create({ homeFlag: home, dataDir, env: {} });
const api = createAppDispatcher(ctx);
const gate = new CallGate();
let quitting = false;

async function saveForEver(): Promise<void> {
  for (let step = 0; !quitting; step++) {
    const read = await gate.run(() => api.call('memories.read', { dir, file }));
    if (!read.ok) throw new Error(`could not read ${file}: ${JSON.stringify(read)}`);
    // Several pages: a file cut half-way would show.
    const body = `step ${step} ${randomBytes(2_000 + Math.floor(Math.random() * 8_000)).toString('hex')}\n`;
    process.stdout.write(`intend ${body}`);
    const input = {
      dir,
      file,
      memoryDir,
      baseText: (read.result as { text: string }).text,
      fields: { name: 'cut', description: 'saved while quitting', type: 'feedback' },
      body,
    };
    await gate.run(() => api.call('memories.update', input), callWords('memories.update', input));
  }
}

void saveForEver();
setTimeout(() => {
  quitting = true;
  void closeWithin(gate, () => ctx.close(), 0).then((unfinished) => {
    process.stdout.write(`cut ${JSON.stringify(unfinished)}\n`);
    process.exit(0);
  });
}, Number(afterMs));
