/**
 * What Claude Code 2.1.332 keyed for launch folders named in decomposed Unicode (review x5 F3),
 * recorded by the live test in claude-code-interop.test.ts (`MEMDIR_RECORD_KEY_FIXTURES=1`) and
 * read by canonical-key.test.ts without the binary. Folder names are recorded after the sanitised
 * temporary directory they were made in.
 */
import fs from 'node:fs';
import path from 'node:path';

export const NFD_KEY_FIXTURE_PATH = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code/key-nfd-2.1.332.json');

/** Launch folders below the test's `nfd/` directory; `git` makes the first segment a repository. */
export const NFD_KEY_CASES: { launch: string; git: boolean }[] = [
  { launch: 'cafe\u0301 proj', git: true },
  { launch: 'cafe\u0301 proj/sub-\u00e9', git: true },
  { launch: 'Ange\u0301lique', git: false },
  { launch: 'caf\u00e9 nfc', git: true },
];

export interface NfdKeyFixture {
  claudeCode: string;
  how: string;
  configDirNormalised: boolean;
  cases: { launch: string; memoryFolder: string; transcriptFolder: string }[];
}

export const NFD_KEY_FIXTURE = JSON.parse(fs.readFileSync(NFD_KEY_FIXTURE_PATH, 'utf8')) as NfdKeyFixture;
