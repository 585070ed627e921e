import { type CommandSpec, homeOption, jsonOption, printJson } from '../command.js';
import { formatProblem, plural } from '../format.js';
import { homeFrom } from './scan.js';
import { applyFixes, fixRequestOf, locateProject, openScanCache, scanHome, scanProject } from '../../main/memdir/index.js';
import { resolveDataDir } from '../../main/core/index.js';
import { sizeAgainstLimits } from '../../shared/index-impact.js';
import type { ProjectScan, ProjectSettings } from '../../shared/scan-types.js';
import { unappliedSettingsLines } from '../../shared/settings-text.js';
import type { Problem } from '../../shared/problems.js';
import type { Scope } from '../../shared/memory-types.js';

/** The projects to lint, and the settings files Claude Code does not load for them (named in the text output). */
async function lintProjects(
  home: string,
  project: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ProjectScan[] & { unappliedSettings: string[]; homeExists: boolean }> {
  const withSettings = (projects: ProjectScan[], more: readonly ProjectSettings[] = [], homeExists = true) =>
    Object.assign(projects, {
      unappliedSettings: [...new Set([...more, ...projects.map((p) => p.settings)].flatMap(unappliedSettingsLines))],
      homeExists,
    });
  if (project) {
    const loc = await locateProject(home, project, env);
    return withSettings([await scanProject(home, loc.dir, { env })], [loc.settings]);
  }
  // The whole home: through the scan cache in Memdir's data dir, as `memdir scan` does.
  const { cache, save } = openScanCache(resolveDataDir(env), home);
  const scan = await scanHome(home, { env, cache });
  if (scan.exists) await save();
  return withSettings(scan.projects, [], scan.exists);
}

const counted = (p: Problem) => p.severity !== 'hint';

export const lintCommand: CommandSpec = {
  name: ['lint'],
  summary: 'Check memory health: dangling and duplicate pointers, orphans, bad frontmatter, values cut by a # comment, index over its limit, unreadable files.',
  args: [],
  options: {
    home: homeOption,
    project: { type: 'string', valueName: 'P', description: 'only this project (a path inside it, or its directory name under projects/)' },
    fix: {
      type: 'boolean',
      description:
        'apply the safe fixes (names and descriptions a # comment cuts short quoted, dangling and repeated pointers out, then orphans into the index while their pointers reach the agent), recorded in history',
    },
    'past-cut': { type: 'boolean', description: 'with --fix, also add orphans whose pointers would fall below the cut (Claude Code never loads them)' },
    json: jsonOption,
  },
  details: `--fix adds a team orphan to MEMORY.md as team/x.md, the one index Claude Code loads (not to team/MEMORY.md).
When MEMORY.md is one Memdir will not edit (a link out of the memory folder, not UTF-8, binary), a team orphan has no
fix ("fix": null) and its message says why; --fix leaves it.
--fix stops adding orphans at the cut (R-INDEX): an orphan whose pointer would fall past the first 200 lines or
25,000 characters Claude Code loads is held back, and so are the ones after it; make room first (shorten hooks, merge,
drop pointers: the app's MEMORY.md tab, Make room) or add them anyway with --past-cut.
JSON: {"projects": [{"dir", "path", "memoryDir", "problems": [{"code", "file", "line", "message", "severity", "fix", "target"?, "scope"}],
  "fixed": [{"kind", "file", "line", "scope"}], "heldBack": [{"kind", "file", "scope", "reason"}]}]}
Exit codes: 0 no problems (hints do not count), 1 problems remain, 2 usage or I/O error.`,
  async run({ values, io }) {
    const home = homeFrom(values, io);
    const project = typeof values.project === 'string' ? values.project : undefined;
    let projects = await lintProjects(home, project, io.env);
    const fixed = new Map<string, { kind: string; file: string; line: number | null; scope: Scope }[]>();
    const held = new Map<string, { kind: string; file: string; scope: Scope; reason: string }[]>();
    if (values.fix) {
      for (const p of projects) {
        const done: { kind: string; file: string; line: number | null; scope: Scope }[] = [];
        const back: { kind: string; file: string; scope: Scope; reason: string }[] = [];
        for (const [scope, problems] of [
          ['private', p.problems],
          ['team', p.team?.problems ?? []],
        ] as const) {
          const fixes = problems.map(fixRequestOf).filter((f) => f !== null);
          if (fixes.length === 0) continue;
          const { applied, heldBack, impact } = await applyFixes({ memoryDir: p.memoryDir, scope, dataDir: resolveDataDir(io.env) }, fixes, {
            pastCut: values['past-cut'] === true,
          });
          done.push(...applied.map((f) => ({ kind: f.kind, file: f.file, line: f.line ?? null, scope })));
          const where = impact.after.truncated
            ? `MEMORY.md already reaches past the cut at line ${impact.after.firstCutLine}`
            : `MEMORY.md is ${sizeAgainstLimits(impact.after)}`;
          back.push(...heldBack.map((f) => ({ kind: f.kind, file: f.file, scope, reason: `its pointer would fall below the cut: ${where}` })));
        }
        fixed.set(p.dir, done);
        held.set(p.dir, back);
      }
      projects = await lintProjects(home, project, io.env);
    }
    const report = projects.map((p) => ({
      dir: p.dir,
      path: p.path,
      memoryDir: p.memoryDir,
      problems: [...p.problems.map((x) => ({ ...x, scope: 'private' as const })), ...(p.team?.problems ?? []).map((x) => ({ ...x, scope: 'team' as const }))],
      fixed: fixed.get(p.dir) ?? [],
      ...(values.fix ? { heldBack: held.get(p.dir) ?? [] } : {}),
    }));
    const remaining = report.reduce((n, p) => n + p.problems.filter(counted).length, 0);
    if (values.json) printJson(io, { projects: report });
    // A mistyped --home (or a CLAUDE_CONFIG_DIR not made yet) is not a healthy home of no projects: say so, as `scan` does.
    else if (!projects.homeExists) io.out(`No Claude Code home at ${home} yet: nothing to lint.\n`);
    else {
      for (const line of projects.unappliedSettings) io.out(`${line}\n`);
      if (projects.unappliedSettings.length > 0) io.out('\n');
      for (const p of report) {
        if (p.problems.length === 0 && p.fixed.length === 0) continue;
        io.out(`${p.path ?? p.dir}\n`);
        for (const f of p.fixed) io.out(`  fixed ${f.kind} ${f.scope === 'team' ? 'team/' : ''}${f.file}${f.line ? `:${f.line}` : ''}\n`);
        const back = p.heldBack ?? [];
        if (back.length > 0) {
          io.out(
            `  held back ${plural(back.length, 'orphan')} (${back
              .slice(0, 5)
              .map((f) => `${f.scope === 'team' ? 'team/' : ''}${f.file}`)
              .join(', ')}${back.length > 5 ? ', …' : ''}): ${back[0]!.reason}.\n`,
          );
          io.out("  Make room first (shorten hooks, merge, drop pointers: the app's MEMORY.md tab), or add them below the cut with --past-cut.\n");
        }
        for (const x of p.problems) io.out(`${formatProblem({ ...x, file: x.file && x.scope === 'team' ? `team/${x.file}` : x.file })}\n`);
        io.out('\n');
      }
      const fixable = report.reduce((n, p) => n + p.problems.filter((x) => x.fix).length, 0);
      io.out(
        remaining === 0
          ? `No problems in ${plural(report.length, 'project')}.\n`
          : `${plural(remaining, 'problem')} in ${plural(report.length, 'project')}.${fixable && !values.fix ? ` ${fixable} can be fixed safely with --fix.` : ''}\n`,
      );
    }
    return remaining > 0 ? 1 : 0;
  },
};
