/** Which Claude Code home the app shows, remembered across runs in Memdir's data dir. */
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { writeDataFile } from '../core/safe-fs.js';

const schema = z.object({ home: z.string().nullable().catch(null), demoHome: z.string().nullable().catch(null) });
export type HomeChoice = z.infer<typeof schema>;

const FILE = 'home.json';

export async function readHomeChoice(dataDir: string): Promise<HomeChoice> {
  try {
    return schema.parse(JSON.parse(await fs.readFile(path.join(dataDir, FILE), 'utf8')));
  } catch {
    // Missing or unreadable: the default home, as on first run.
    return { home: null, demoHome: null };
  }
}

export async function writeHomeChoice(dataDir: string, choice: HomeChoice): Promise<void> {
  await writeDataFile(path.join(dataDir, FILE), `${JSON.stringify(choice, null, 2)}\n`);
}
