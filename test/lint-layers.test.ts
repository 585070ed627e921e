/**
 * The layer rules in eslint.config.js (STYLE.md "The house"; issue 17, item 6), each fed one
 * offending snippet placed in the layer it breaks — the rule must fire with its sentence — and one
 * allowed snippet that must lint clean, so a rule that fires on everything fails too.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: REPO });
});

/** Every message ESLint gives for `code` as if it were the file at `file` (relative to the repo). */
async function lint(file: string, code: string): Promise<{ ruleId: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO, file) });
  return result!.messages.map(({ ruleId, message }) => ({ ruleId, message }));
}

interface Rule {
  rule: string;
  /** The sentence a developer reads when it fires. */
  says: string;
  offending: { file: string; code: string; ruleId: string };
  allowed: { file: string; code: string };
}

const STORES_ONLY = 'Views and components talk to stores only';
const ENTRIES_ONLY = 'Import a capability (or the core floor) through its front door, src/main/<capability>/index.js';
const NO_SERVER = 'src/main imports nothing of src/server: the wire protocol is in src/shared/protocol';
const NO_APP = 'Only src/main/app, src/main/api and src/main/shell import src/main/app';
const FRONT_DOOR = "is private to memdir: import it from memdir's front door, src/main/memdir/index.js";

const RULES: Rule[] = [
  {
    rule: 'electron is imported only in src/main/shell/electron',
    says: 'Only src/main/shell/electron may import electron.',
    offending: {
      file: 'src/main/jobs/layer-probe.ts',
      code: "import { app } from 'electron';\nexport const name = app.name;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/shell/electron/layer-probe.ts', code: "import { app } from 'electron';\nexport const name = app.name;\n" },
  },
  {
    rule: 'zod is imported as a namespace, so the bundle keeps only the zod it uses',
    says: "Import zod as a namespace, import * as z from 'zod'",
    offending: {
      file: 'src/main/jobs/layer-probe.ts',
      code: "import { z } from 'zod';\nexport const name = z.string();\n",
      ruleId: 'memdir/zod-namespace',
    },
    allowed: { file: 'src/main/jobs/layer-probe.ts', code: "import * as z from 'zod';\nexport const name = z.string();\n" },
  },
  {
    rule: 'zod as a namespace in the renderer too (a default import is the same namespace)',
    says: "Import zod as a namespace, import * as z from 'zod'",
    offending: {
      file: 'src/renderer/layer-probe.ts',
      code: "import z from 'zod';\nexport const name = z.string();\n",
      ruleId: 'memdir/zod-namespace',
    },
    allowed: { file: 'src/renderer/layer-probe.ts', code: "import * as z from 'zod';\nexport const name = z.string();\n" },
  },
  {
    rule: 'electron/* subpaths too',
    says: 'Only src/main/shell/electron may import electron.',
    offending: {
      file: 'src/main/app/layer-probe.ts',
      code: "import { app } from 'electron/main';\nexport const name = app.name;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/shell/electron/layer-probe.ts', code: "import { app } from 'electron/main';\nexport const name = app.name;\n" },
  },
  {
    rule: 'electron through import() outside the shell',
    says: 'Only src/main/shell/electron may import electron.',
    offending: { file: 'src/renderer/stores/layer-probe.ts', code: "export const load = () => import('electron/renderer');\n", ruleId: 'no-restricted-syntax' },
    allowed: { file: 'src/renderer/stores/layer-probe.ts', code: "export const load = () => import('./nav.js');\n" },
  },
  {
    rule: 'no chokidar in the renderer',
    says: 'chokidar runs only under Node: the renderer never touches Node.',
    offending: {
      file: 'src/renderer/stores/layer-probe.ts',
      code: "import chokidar from 'chokidar';\nexport const watch = chokidar.watch;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/memdir/layer-probe.ts', code: "import chokidar from 'chokidar';\nexport const watch = chokidar.watch;\n" },
  },
  {
    rule: 'no Node-only package subpath in the renderer',
    says: 'That package runs only under Node.',
    offending: {
      file: 'src/renderer/components/layer-probe.ts',
      code: "import { Pool } from 'pg/lib/index.js';\nexport const pool = Pool;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/renderer/components/layer-probe.ts', code: "import { create } from 'zustand';\nexport const make = create;\n" },
  },
  {
    rule: 'no node:* built-in in the renderer',
    says: 'The renderer never touches Node.',
    offending: {
      file: 'src/renderer/views/layer-probe.ts',
      code: "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/memdir/layer-probe.ts', code: "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n" },
  },
  {
    rule: 'no built-in through import() in the renderer',
    says: 'The renderer never touches Node. Not even through import().',
    offending: { file: 'src/renderer/stores/layer-probe.ts', code: "export const load = () => import('fs/promises');\n", ruleId: 'no-restricted-syntax' },
    allowed: { file: 'src/main/memdir/layer-probe.ts', code: "export const load = () => import('fs/promises');\n" },
  },
  {
    rule: 'no Node-only package through import() in the renderer',
    says: 'The renderer never touches Node. That package runs only under Node.',
    offending: { file: 'src/renderer/stores/layer-probe.ts', code: "export const load = () => import('chokidar');\n", ruleId: 'no-restricted-syntax' },
    allowed: { file: 'src/main/memdir/layer-probe.ts', code: "export const load = () => import('chokidar');\n" },
  },
  {
    rule: 'the renderer imports only src/shared',
    says: 'The renderer imports only src/shared.',
    offending: {
      file: 'src/renderer/stores/layer-probe.ts',
      code: "import { scanHome } from '../../main/memdir/scan.js';\nexport const scan = scanHome;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: {
      file: 'src/renderer/stores/layer-probe.ts',
      code: "import { INDEX_MAX_LINES } from '../../shared/limits.js';\nexport const lines = INDEX_MAX_LINES;\n",
    },
  },
  {
    rule: 'the renderer loads no other layer through import()',
    says: 'The renderer imports only src/shared. Not even through import().',
    offending: {
      file: 'src/renderer/stores/layer-probe.ts',
      code: "export const load = () => import('../../main/memdir/scan.js');\n",
      ruleId: 'no-restricted-syntax',
    },
    allowed: { file: 'src/renderer/stores/layer-probe.ts', code: "export const load = () => import('../../shared/limits.js');\n" },
  },
  {
    rule: 'src/shared is pure: no built-ins',
    says: 'src/shared is pure: no Node built-ins.',
    offending: { file: 'src/shared/layer-probe.ts', code: "import path from 'node:path';\nexport const join = path.join;\n", ruleId: 'no-restricted-imports' },
    allowed: { file: 'src/shared/layer-probe.ts', code: "import * as z from 'zod';\nexport const name = z.string();\n" },
  },
  {
    rule: 'src/shared loads no built-in through import()',
    says: 'src/shared is pure: no Node built-ins, not even through import().',
    offending: { file: 'src/shared/layer-probe.ts', code: "export const load = () => import('node:crypto');\n", ruleId: 'no-restricted-syntax' },
    allowed: { file: 'src/shared/layer-probe.ts', code: "export const load = () => import('./limits.js');\n" },
  },
  {
    rule: 'src/shared imports nothing else of ours',
    says: 'src/shared imports nothing else of ours.',
    offending: {
      file: 'src/shared/layer-probe.ts',
      code: "import { messageOf } from '../renderer/stores/errors.js';\nexport const say = messageOf;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/shared/layer-probe.ts', code: "import { INDEX_MAX_LINES } from './limits.js';\nexport const lines = INDEX_MAX_LINES;\n" },
  },
  {
    rule: 'src/shared loads nothing else of ours through import()',
    says: 'src/shared imports nothing else of ours, not even through import().',
    offending: {
      file: 'src/shared/contract/layer-probe.ts',
      code: "export const load = () => import('../../main/api/router.js');\n",
      ruleId: 'no-restricted-syntax',
    },
    allowed: { file: 'src/shared/contract/layer-probe.ts', code: "export const load = () => import('../limits.js');\n" },
  },
  {
    rule: 'import() in the renderer takes a plain string',
    says: 'import() here takes a plain string, so lint can see which layer it loads.',
    offending: {
      file: 'src/renderer/stores/layer-probe.ts',
      code: 'export const load = (layer: string) => import(`../../${layer}/index.js`);\n',
      ruleId: 'no-restricted-syntax',
    },
    allowed: { file: 'src/main/jobs/layer-probe.ts', code: 'export const load = (layer: string) => import(`../${layer}/index.js`);\n' },
  },
  {
    rule: 'import() in src/shared takes a plain string',
    says: 'import() here takes a plain string, so lint can see which layer it loads.',
    offending: {
      file: 'src/shared/layer-probe.ts',
      code: "const where = '../main/api/router.js';\nexport const load = () => import(where);\n",
      ruleId: 'no-restricted-syntax',
    },
    allowed: { file: 'src/shared/layer-probe.ts', code: "export const load = () => import('./contract/index.js');\n" },
  },
  {
    rule: 'src/server imports no src/main',
    says: 'src/server imports only src/shared (the wire protocol lives there).',
    offending: {
      file: 'src/server/layer-probe.ts',
      code: "import { scanForSecrets } from '../main/secrets/scan.js';\nexport const scan = scanForSecrets;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/server/layer-probe.ts', code: "import { INDEX_MAX_LINES } from '../shared/limits.js';\nexport const lines = INDEX_MAX_LINES;\n" },
  },
  {
    rule: 'src/server imports no src/renderer',
    says: 'src/server imports only src/shared (the wire protocol lives there).',
    offending: {
      file: 'src/server/admin/layer-probe.ts',
      code: "import { messageOf } from '../../renderer/stores/errors.js';\nexport const say = messageOf;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/server/admin/layer-probe.ts', code: "import { startServer } from '../server.js';\nexport const start = startServer;\n" },
  },
  {
    rule: 'src/main imports no src/server (the wire protocol is in src/shared/protocol)',
    says: NO_SERVER,
    offending: {
      file: 'src/main/team/layer-probe.ts',
      code: "import { isTeamName } from '../../server/admin.js';\nexport const check = isTeamName;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: {
      file: 'src/main/team/layer-probe.ts',
      code: "import { isTeamName } from '../../shared/protocol/team-name.js';\nimport { parseEtag } from '../../shared/protocol/sync.js';\nexport const check = [isTeamName, parseEtag];\n",
    },
  },
  {
    rule: 'src/main loads no src/server through import(); a test fixture may start a real server',
    says: NO_SERVER,
    offending: {
      file: 'src/main/personal/sub/layer-probe.ts',
      code: "export const load = () => import('../../../server/server.js');\n",
      ruleId: 'no-restricted-syntax',
    },
    allowed: {
      file: 'src/main/personal/test-support/layer-probe.ts',
      code: "import { startServer } from '../../../server/server.js';\nexport const start = startServer;\n",
    },
  },
  {
    rule: 'the api imports no src/server; the CLI (whose `server` command runs it) may',
    says: NO_SERVER,
    offending: {
      file: 'src/main/api/layer-probe.ts',
      code: "import { createTeam } from '../../server/admin.js';\nexport const create = createTeam;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/cli/commands/layer-probe.ts', code: "import { createTeam } from '../../server/admin.js';\nexport const create = createTeam;\n" },
  },
  {
    rule: 'the Electron shell imports no src/server; its tests may',
    says: NO_SERVER,
    offending: {
      file: 'src/main/shell/electron/layer-probe.ts',
      code: "import { startServer } from '../../../server/server.js';\nexport const start = startServer;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: {
      file: 'src/main/shell/electron/layer-probe.test.ts',
      code: "import { startServer } from '../../../server/server.js';\nexport const start = startServer;\n",
    },
  },
  {
    rule: 'a capability imports no src/main/app; the api does',
    says: NO_APP,
    offending: {
      file: 'src/main/jobs/layer-probe.ts',
      code: "import type { AppContext } from '../app/index.js';\nexport type Ctx = AppContext;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/api/layer-probe.ts', code: "import type { AppContext } from '../app/index.js';\nexport type Ctx = AppContext;\n" },
  },
  {
    rule: "a capability's subfolder imports no src/main/app; the core holds the event bus",
    says: NO_APP,
    offending: {
      file: 'src/main/team/sync/layer-probe.ts',
      code: "import { EventBus } from '../../app/event-bus.js';\nexport const bus = EventBus;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/team/sync/layer-probe.ts', code: "import { EventBus } from '../../core/event-bus.js';\nexport const bus = EventBus;\n" },
  },
  {
    rule: 'a capability loads no src/main/app through import(); the shells do',
    says: NO_APP,
    offending: { file: 'src/main/hooks/layer-probe.ts', code: "export const load = () => import('../app/app-context.js');\n", ruleId: 'no-restricted-syntax' },
    allowed: { file: 'src/main/shell/host/layer-probe.ts', code: "export const load = () => import('../../app/app-context.js');\n" },
  },
  {
    rule: "a capability's tests may build the whole app",
    says: NO_APP,
    offending: {
      file: 'src/main/dream/layer-probe.ts',
      code: "import { AppContext } from '../app/app-context.js';\nexport const app = AppContext;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/dream/layer-probe.test.ts', code: "import { AppContext } from '../app/app-context.js';\nexport const app = AppContext;\n" },
  },
  {
    rule: 'views do not import the transport',
    says: `${STORES_ONLY}: call a store action, which calls main.`,
    offending: {
      file: 'src/renderer/views/LayerProbe.tsx',
      code: "import { call } from '../transport/transport.js';\nexport const ask = () => call('agents.list', {});\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/renderer/views/LayerProbe.tsx', code: "import { useTeam } from '../stores/team.js';\nexport const team = useTeam;\n" },
  },
  {
    rule: 'components do not import the transport',
    says: `${STORES_ONLY}: call a store action, which calls main.`,
    offending: {
      file: 'src/renderer/components/LayerProbe.tsx',
      code: "import { subscribe } from '../transport/transport.js';\nexport const listen = subscribe;\n",
      ruleId: 'no-restricted-imports',
    },
    // Only a store calls main.
    allowed: {
      file: 'src/renderer/stores/layer-probe.ts',
      code: "import { call } from '../transport/transport.js';\nexport const ask = () => call('agents.list', {});\n",
    },
  },
  {
    rule: 'views do not reach for the bridge',
    says: `${STORES_ONLY}: call a store action, which calls main.`,
    offending: {
      file: 'src/renderer/views/LayerProbe.tsx',
      code: "export const ask = () => window.memdirBridge?.call('agents.list', {});\n",
      ruleId: 'no-restricted-properties',
    },
    allowed: { file: 'src/renderer/main.tsx', code: "export const ask = () => window.memdirBridge?.call('agents.list', {});\n" },
  },
  {
    rule: 'the CLI reaches src/main only through a capability entry',
    says: ENTRIES_ONLY,
    offending: {
      file: 'src/cli/commands/layer-probe.ts',
      code: "import { locateProject } from '../../main/memdir/projects.js';\nexport const locate = locateProject;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: {
      file: 'src/cli/commands/layer-probe.ts',
      code: "import { locateProject } from '../../main/memdir/index.js';\nimport { VERSION } from '../../main/core/index.js';\nexport const locate = [locateProject, VERSION];\n",
    },
  },
  {
    rule: "the CLI reads Memdir's version from the core, not the app",
    says: ENTRIES_ONLY,
    offending: {
      file: 'src/cli/layer-probe.ts',
      code: "import { VERSION } from '../main/app/version.js';\nexport const version = VERSION;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/cli/layer-probe.ts', code: "import { VERSION } from '../main/core/index.js';\nexport const version = VERSION;\n" },
  },
  {
    rule: "the CLI takes the core floor through its front door too, not the floor's files",
    says: ENTRIES_ONLY,
    offending: {
      file: 'src/cli/layer-probe.ts',
      code: "import { VERSION } from '../main/core/version.js';\nexport const version = VERSION;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/cli/layer-probe.ts', code: "import { VERSION } from '../main/core/index.js';\nexport const version = VERSION;\n" },
  },
  {
    rule: 'the CLI loads no internal module of a capability through import()',
    says: ENTRIES_ONLY,
    offending: {
      file: 'src/cli/commands/layer-probe.ts',
      code: "export const load = () => import('../../main/hooks/claude-settings-hooks.js');\n",
      ruleId: 'no-restricted-syntax',
    },
    allowed: { file: 'src/cli/commands/layer-probe.ts', code: "export const load = () => import('../../main/hooks/index.js');\n" },
  },
  {
    rule: 'the api reaches a capability only through its entry',
    says: ENTRIES_ONLY,
    offending: {
      file: 'src/main/api/layer-probe.ts',
      code: "import { readMemoryText } from '../memdir/read-file.js';\nexport const read = readMemoryText;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: {
      file: 'src/main/api/layer-probe.ts',
      code: "import { readMemoryText } from '../memdir/index.js';\nimport { INDEX_FILE } from '../../shared/limits.js';\nimport { toRpcError } from './dispatch.js';\nexport const read = [readMemoryText, INDEX_FILE, toRpcError];\n",
    },
  },
  {
    rule: "the api does not reach into a capability's subfolder",
    says: ENTRIES_ONLY,
    offending: {
      file: 'src/main/api/layer-probe.ts',
      code: "import { recallLikeClaudeCode } from '../recall/claude-code/recall-like-claude-code.js';\nexport const recall = recallLikeClaudeCode;\n",
      ruleId: 'no-restricted-imports',
    },
    allowed: { file: 'src/main/api/layer-probe.ts', code: "import { RecallService } from '../recall/index.js';\nexport const recall = RecallService;\n" },
  },
  {
    rule: 'the hook command, too, loads the hook runner through its entry (hook-spool/ is kept small for it)',
    says: ENTRIES_ONLY,
    offending: {
      file: 'src/cli/commands/hook.ts',
      code: "export const load = () => import('../../main/hook-spool/run-hook.js');\n",
      ruleId: 'no-restricted-syntax',
    },
    allowed: { file: 'src/cli/commands/hook.ts', code: "export const load = () => import('../../main/hook-spool/index.js');\n" },
  },
  {
    rule: "a capability does not import another capability's private file",
    says: FRONT_DOOR,
    offending: {
      file: 'src/main/history/layer-probe.ts',
      code: "import { withMemoryLock } from '../memdir/memory-lock.js';\nexport const lock = withMemoryLock;\n",
      ruleId: 'memdir/front-doors',
    },
    allowed: {
      file: 'src/main/history/layer-probe.ts',
      code: "import { withMemoryLock } from '../memdir/index.js';\nimport { writeFileAtomic } from '../core/safe-fs.js';\nimport { git } from './git.js';\nexport const used = [withMemoryLock, writeFileAtomic, git];\n",
    },
  },
  {
    rule: 'nor from a subfolder, nor through import(); its tests may reach in',
    says: FRONT_DOOR,
    offending: {
      file: 'src/main/dream/plan/layer-probe.ts',
      code: "export const load = () => import('../../memdir/scan-home.js');\n",
      ruleId: 'memdir/front-doors',
    },
    allowed: {
      file: 'src/main/dream/plan/layer-probe.test.ts',
      code: "import { scanHome } from '../../memdir/scan-home.js';\nexport const scan = scanHome;\n",
    },
  },
];

describe('the layer rules lint enforces', () => {
  it.each(RULES)('$rule: fires on the offending snippet with its sentence', async ({ says, offending }) => {
    const messages = await lint(offending.file, offending.code);
    expect(messages).toContainEqual({ ruleId: offending.ruleId, message: expect.stringContaining(says) });
  });

  it.each(RULES)('$rule: lets the allowed snippet through', async ({ allowed }) => {
    expect(await lint(allowed.file, allowed.code)).toEqual([]);
  });
});
