/**
 * Memory that follows the project (issue 18): `memdir orphans`, `memdir relink`, `memdir merge`
 * (and its list, conflicts, resolve, undo), `memdir export`, `memdir import`. The same services
 * as the app (src/main/relink).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MergePlan, MergeRecord } from '../../shared/contract/identity.js';
import { describeEvidence } from '../../shared/project-identity.js';
import { resolveDataDir } from '../../main/core/index.js';
import {
  checkMergeHome,
  conflictSides,
  exportProject,
  findOrphans,
  finishUnfinishedTurn,
  importArchive,
  listMergeRecords,
  mergeInHome,
  mergeProjects,
  planImport,
  planMerge,
  planRelink,
  readMergeRecord,
  relink,
  type RelinkContext,
  resolveMergeConflict,
  turnEntries,
  shownMergeConflict,
  shownMergePlan,
  shownMergeRecord,
  undoMerge,
} from '../../main/relink/index.js';
import { loadAppSettings } from '../../main/settings/index.js';
import {
  ALLOW_SECRET_HELP,
  allowSecretOption,
  allowedSecrets,
  type CliIo,
  type CommandSpec,
  EXIT_OK,
  EXIT_PROBLEMS,
  UsageError,
  homeOption,
  jsonOption,
  printJson,
  wholeNumberOption,
  withAllowHint,
} from '../command.js';
import { ago, plural, table } from '../format.js';
import { homeFrom } from './scan.js';
import { dreamsFor } from './dream.js';
import { readMergedTextFile } from '../merged-text-file.js';

/**
 * What every relink, merge and import command does first, and `memdir undo`: finish a turn of a
 * merge that a killed Memdir left between its folders (relink/turn-as-one.ts) — put back whole —
 * so nothing reads a half-turned merge. The sentence goes to stderr, and into the JSON as
 * `recovered` (absent when there was nothing to finish).
 */
export async function finishTurnFirst(io: CliIo): Promise<{ recovered?: string }> {
  const sentence = await finishUnfinishedTurn(resolveDataDir(io.env));
  if (!sentence) return {};
  io.err(`${sentence}\n`);
  return { recovered: sentence };
}

/** The --help line of {@link finishTurnFirst}. */
export const RECOVERED_HELP = `A merge, relink, import or undo of one that a killed Memdir left between its folders is first put back
whole — only what it wrote; what was written there since stays, and a file it wrote that was changed since (a delete or rename
in the app too) is left as it is and named; a memory it moved is never in neither folder (said on stderr and, in JSON, as
"recovered": sentence — absent when there was nothing to finish; a put-back that failed is said too, and refuses new merges
until it is done).`;

async function contextOf(values: Record<string, unknown>, io: CliIo): Promise<RelinkContext> {
  const dataDir = resolveDataDir(io.env);
  const { settings } = await loadAppSettings(dataDir);
  return { home: homeFrom(values, io), dataDir, env: io.env, workspaces: settings.workspaces.folders };
}

/** `--home` of the merge record commands: records are kept per data folder, for every home; the option picks one home's. */
const mergeHomeOption = { ...homeOption, description: 'only merges made in this Claude Code home (default: every home this data folder served)' };

/** With --home, merge `id` must have been made in that home. */
async function checkHome(values: Record<string, unknown>, io: CliIo, id: string): Promise<void> {
  if (typeof values.home === 'string') await checkMergeHome(resolveDataDir(io.env), id, homeFrom(values, io));
}

const yesOption = { type: 'boolean' as const, description: 'do it (without it, only show what would be done)' };
const forceOption = { type: 'boolean' as const, description: 'go ahead although the identities disagree or another orphan claims the place' };

function printPlan(io: CliIo, plan: MergePlan): void {
  io.out(`${plan.kind === 'import' ? 'Import' : plan.kind === 'relink' ? 'Relink' : 'Merge'} ${plan.source.label} → ${plan.target.path ?? plan.target.dir}\n`);
  io.out(`  into ${plan.target.memoryDir}\n  evidence: ${describeEvidence(plan.evidence)}\n`);
  const rows = [
    ['AREA', 'FILE', 'ACTION'],
    ...plan.files.map((f) => [
      f.area,
      f.file,
      f.action === 'same'
        ? 'identical (kept once)'
        : f.action === 'conflict'
          ? 'conflict (kept for you)'
          : f.action === 'index'
            ? 'index lines added'
            : 'added',
    ]),
  ];
  if (plan.files.length > 0) io.out(`\n${table(rows)}`);
  for (const w of plan.warnings) io.out(`\nNote: ${w}\n`);
  for (const b of plan.blockers) io.out(`\nStopped: ${b}\n`);
}

function printDone(io: CliIo, record: MergeRecord): void {
  const open = record.conflicts.filter((c) => c.status === 'open');
  io.out(
    `Done: ${plural(record.plan.files.filter((f) => f.action === 'add').length, 'file')} added, ${plural(open.length, 'conflict')} kept (merge ${record.id}).\n`,
  );
  for (const t of record.touched) io.out(`  history entry ${t.rev.slice(0, 10)} in ${t.memoryDir}\n`);
  if (open.length > 0)
    io.out(`Resolve with \`memdir merge conflicts ${record.id}\` and \`memdir merge resolve ${record.id} <n> --keep here|moved|both|merged\`.\n`);
  io.out(`Undo all of it: memdir merge undo ${record.id}\n`);
}

/** Preview, or apply with --yes: one shape for relink, merge and import. */
async function previewOrApply(
  io: CliIo,
  values: Record<string, unknown>,
  plan: () => Promise<{ plan: MergePlan }>,
  apply: () => Promise<MergeRecord>,
): Promise<number> {
  const recovered = await finishTurnFirst(io);
  if (!values.yes) {
    // Shown as the app shows it: a secret in a conflict's name masked (shownMergePlan, shownMergeRecord).
    const p = await shownMergePlan((await plan()).plan);
    if (values.json) printJson(io, { applied: false, plan: p, ...recovered });
    else {
      printPlan(io, p);
      io.out(
        p.blockers.length > 0 ? '\nNothing was written. Add --force --yes if you are sure.\n' : '\nNothing was written yet: run again with --yes to do it.\n',
      );
    }
    return p.blockers.length > 0 ? 1 : 0;
  }
  const record = await shownMergeRecord(await apply());
  if (values.json) printJson(io, { applied: true, record, ...recovered });
  else printDone(io, record);
  return record.conflicts.some((c) => c.status === 'open') ? 1 : 0;
}

const PLAN_JSON = `JSON: {"applied": false, "plan": {"kind", "source": {"label", "dir", "memoryDir", "identity"}, "target": {"path", "dir", "memoryDir", "identity"},
  "files": [{"area": "private"|"team"|"agent:<scope>:<type>"|"agent:<scope>:<type>@<launch dir from the root>", "file", "action": "add"|"same"|"conflict"|"index"}],
  "areas": [{"area", "from", "to", "indexAdded", "notInIndex"}], "evidence", "warnings", "blockers"}}
  ("identity": {"source": "repository"|"remembered"|"paths", "remotes", "rootCommits", "paths", "gitDir", "readAt", "note"} or null)
  or, with --yes, {"applied": true, "record": {"id", "kind", "createdAt", "plan", "touched": [{"memoryDir", "rev", "files"}],
  "conflicts": [{"n", "area", "file", "memoryDir", "status", "resolution", "resolvedAt"}], "undone", "redone", "earlier"}}
  ("undone"/"redone": {"at", "revs"} or null — taken back, or brought back by undoing its undo with memdir undo).
${RECOVERED_HELP}
Exit 0 done (or could be done), 1 stopped by a blocker (preview) or conflicts kept, 2 refused.`;

export const orphansCommand: CommandSpec = {
  name: ['orphans'],
  summary: 'List memory directories whose project paths no longer exist, with where the project may have gone and why.',
  args: [],
  options: {
    home: homeOption,
    'look-in': { type: 'string', multiple: true, valueName: 'DIR', description: 'also look for the project in DIR (and two levels below it); may be repeated' },
    json: jsonOption,
  },
  details: `A project renamed, moved or cloned afresh leaves its memory behind: Claude Code keys memory by path.
Candidates come from the folders other sessions ran in, the workspaces in Settings and --look-in,
matched by identity: same remote, same root commit, same name (read from the repositories' files).
JSON: {"orphans": [{"dir", "memoryDir", "paths", "identity", "memories": {"private", "team", "files"}, "lastActivityMs",
  "candidates": [{"path", "evidence": ["same-remote"|"same-root-commit"|"same-name"], "origin": "transcripts"|"workspace"|"given",
                  "dir", "memoryDir", "memories", "claimedBy"}]}], "searched": {"workspaces", "given", "folders"}}
${RECOVERED_HELP}
Exit 0 no orphans, 1 orphans found.`,
  async run({ values, io }) {
    const recovered = await finishTurnFirst(io);
    const ctx = await contextOf(values, io);
    const lookIn = ((values['look-in'] as string[] | undefined) ?? []).map((d) => path.resolve(io.cwd, d));
    for (const d of lookIn) if (!fs.existsSync(d)) throw new UsageError(`--look-in ${d}: no such folder`);
    const report = await findOrphans(ctx.home, { dataDir: ctx.dataDir, env: io.env, workspaces: ctx.workspaces ?? [], lookIn });
    if (values.json) {
      printJson(io, { ...report, ...recovered });
      return report.orphans.length > 0 ? 1 : 0;
    }
    if (report.orphans.length === 0) {
      // A mistyped --home is not a home with nothing orphaned: say so, as `scan` does.
      if (!fs.existsSync(ctx.home)) io.out(`No Claude Code home at ${ctx.home} yet: no memory can be orphaned.\n`);
      else io.out('No orphaned memory: every project with memories is where its sessions last ran.\n');
      return 0;
    }
    for (const o of report.orphans) {
      io.out(
        `${o.dir}\n  was at ${o.paths.join(', ') || '(unknown: no transcript names it)'} · ${plural(o.memories.private, 'memory', 'memories')}${o.memories.team ? `, ${o.memories.team} team` : ''} · last active ${ago(o.lastActivityMs)}\n`,
      );
      if (o.candidates.length === 0)
        io.out('  no candidate found: give a folder to look in (--look-in DIR), or add your projects folder as a workspace in Settings\n');
      for (const c of o.candidates) {
        io.out(
          `  → ${c.path}  (${describeEvidence(c.evidence)}; found in ${c.origin}${c.memories ? `; already holds ${plural(c.memories, 'memory', 'memories')}` : ''}${c.claimedBy.length ? `; also claimed by ${c.claimedBy.join(', ')}` : ''})\n`,
        );
        io.out(`      memdir relink ${o.dir} ${c.path}\n`);
      }
    }
    return 1;
  },
};

export const relinkCommand: CommandSpec = {
  name: ['relink'],
  summary: "Move an orphan's memories (private, team, agent) to the memory Claude Code now uses for the project's new path.",
  args: ['<orphan-dir>', '<new-project-path>'],
  options: { home: homeOption, yes: yesOption, force: forceOption, json: jsonOption },
  details: `Without --yes, shows what would happen. Where the target already has memories they are merged:
identical files once, a file with the same name and other content kept as a conflict (the target's
stays), index lines added while MEMORY.md stays under Claude Code's cut (the rest are named, and
the moved MEMORY.md is kept as a conflict when a line of it has no place). The local agent memory
of the root and of each directory under it the sessions start in moves to the same place under the
new root (app/.claude/agent-memory-local/ to the new app/); what has no place there stays, named in
the warnings. One history entry in each directory; \`memdir merge undo <id>\` undoes all of it. Transcripts and
settings are never rewritten.
${PLAN_JSON}`,
  async run({ positionals, values, io }) {
    const ctx = await contextOf(values, io);
    const [dir, to] = positionals as [string, string];
    const target = path.resolve(io.cwd, to);
    return previewOrApply(
      io,
      values,
      () => planRelink(ctx, dir, target),
      () => relink(ctx, dir, target, { force: Boolean(values.force) }),
    );
  },
};

export const mergeCommand: CommandSpec = {
  name: ['merge'],
  summary: "Merge one project's memory into another's with the same identity (two clones, a moved copy).",
  args: ['<from-dir>', '<into-dir>'],
  options: { home: homeOption, yes: yesOption, force: forceOption, json: jsonOption },
  details: `The same merge as relink; <from-dir> is emptied (its memories move). Without --yes, shows what would happen.
${PLAN_JSON}`,
  async run({ positionals, values, io }) {
    const ctx = await contextOf(values, io);
    const [from, into] = positionals as [string, string];
    return previewOrApply(
      io,
      values,
      () => planMerge(ctx, from, into),
      () => mergeProjects(ctx, from, into, { force: Boolean(values.force) }),
    );
  },
};

export const mergeListCommand: CommandSpec = {
  name: ['merge', 'list'],
  summary: 'List the relinks, merges and imports done, newest first.',
  args: [],
  options: { home: mergeHomeOption, json: jsonOption },
  details: `With --home H, only those made in H (into one of its projects); without, those of every home.
JSON: {"merges": [<record>]} (see \`memdir relink --help\`).
${RECOVERED_HELP}`,
  async run({ values, io }) {
    const home = typeof values.home === 'string' ? homeFrom(values, io) : null;
    const recovered = await finishTurnFirst(io);
    const all = await Promise.all((await listMergeRecords(resolveDataDir(io.env))).map(shownMergeRecord));
    const merges = home !== null ? all.filter((m) => mergeInHome(m, home)) : all;
    if (values.json) printJson(io, { merges, ...recovered });
    else if (merges.length === 0) io.out(all.length === 0 ? 'No merges yet.\n' : `No merges made in ${home}.\n`);
    else
      io.out(
        table([
          ['ID', 'KIND', 'FROM', 'INTO', 'CONFLICTS', 'STATE'],
          ...merges.map((m) => [
            m.id,
            m.kind,
            m.plan.source.label,
            m.plan.target.dir,
            String(m.conflicts.filter((c) => c.status === 'open').length),
            m.undone ? 'undone' : 'done',
          ]),
        ]),
      );
    return 0;
  },
};

export const mergeConflictsCommand: CommandSpec = {
  name: ['merge', 'conflicts'],
  summary: 'Show the conflicts a merge kept: the version in place and the one that came over.',
  args: ['<id>'],
  options: { home: mergeHomeOption, json: jsonOption },
  details: `With --home H, refused unless the merge was made in H.
JSON: {"id", "conflicts": [{"conflict": {"n", "area", "file", "memoryDir", "status", "resolution", "resolvedAt"}, "here", "moved", "both", "source"}]}
("both": what --keep both writes, the app's merge editor's first text: every line of both, the one in place first).
${RECOVERED_HELP}
Exit 0 none open, 1 open conflicts.`,
  async run({ positionals, values, io }) {
    const recovered = await finishTurnFirst(io);
    const dataDir = resolveDataDir(io.env);
    await checkHome(values, io, positionals[0]!);
    const record = await readMergeRecord(dataDir, positionals[0]!);
    if (!record) throw new UsageError(`there is no merge ${positionals[0]} (see \`memdir merge list\`)`);
    const conflicts = [];
    for (const c of record.conflicts) {
      const sides = await conflictSides(dataDir, record.id, c.n);
      conflicts.push({ conflict: await shownMergeConflict(c), here: sides.here, moved: sides.moved, both: sides.both, source: record.plan.source.label });
    }
    if (values.json) printJson(io, { id: record.id, conflicts, ...recovered });
    else if (conflicts.length === 0) io.out(`Merge ${record.id} kept no conflict.\n`);
    else
      for (const c of conflicts)
        io.out(
          `#${c.conflict.n} ${c.conflict.file} (${c.conflict.status}${c.conflict.resolution ? `: ${c.conflict.resolution}` : ''})\n--- in place\n${c.here}\n--- from ${c.source}\n${c.moved}\n`,
        );
    return conflicts.some((c) => c.conflict.status === 'open') ? 1 : 0;
  },
};

export const mergeResolveCommand: CommandSpec = {
  name: ['merge', 'resolve'],
  summary: 'Resolve a conflict a merge kept: keep the file in place, take the moved one, keep both, or a merged text.',
  args: ['<id>', '<n>'],
  options: {
    keep: { type: 'string', valueName: 'here|moved|both|merged', description: 'which version to keep' },
    file: { type: 'string', valueName: 'F', description: 'with --keep merged: the merged text' },
    allow: allowSecretOption,
    home: mergeHomeOption,
    json: jsonOption,
  },
  details: `One history entry (undo it with \`memdir restore\`). With --home H, refused unless the merge was made in H.
JSON: the merge record (see \`memdir relink --help\`).
--keep merged refuses, nothing written, a text still holding a <<<<<<< or >>>>>>> line (named by its number), or a
--file that is binary, not UTF-8 or over 1 MB.
${ALLOW_SECRET_HELP}
${RECOVERED_HELP}`,
  async run({ positionals, values, io }) {
    const keep = values.keep;
    if (keep !== 'here' && keep !== 'moved' && keep !== 'both' && keep !== 'merged') throw new UsageError('--keep must be here, moved, both or merged');
    const recovered = await finishTurnFirst(io);
    const n = wholeNumberOption({ n: positionals[1] }, 'n', { min: 0, max: 100_000 })!;
    await checkHome(values, io, positionals[0]!);
    if (values.file !== undefined && keep !== 'merged') throw new UsageError('--file goes with --keep merged');
    let text: string | undefined;
    if (typeof values.file === 'string') text = readMergedTextFile(io, values.file);
    const record = await shownMergeRecord(
      await withAllowHint(() => resolveMergeConflict(resolveDataDir(io.env), positionals[0]!, n, keep, text, allowedSecrets(values))),
    );
    if (values.json) printJson(io, { ...record, ...recovered });
    else io.out(`Resolved #${n} (${keep}). ${plural(record.conflicts.filter((c) => c.status === 'open').length, 'conflict')} left.\n`);
    return 0;
  },
};

export const mergeUndoCommand: CommandSpec = {
  name: ['merge', 'undo'],
  summary: 'Undo a relink, merge or import: every directory it changed is put back (one history entry each).',
  args: ['<id>'],
  options: {
    home: mergeHomeOption,
    'overwrite-changed': { type: 'boolean', description: 'undo anyway: also put back memory files changed since (their later content stays in history)' },
    json: jsonOption,
  },
  details: `Each directory's merge entry is undone as \`memdir undo\` undoes one: its memory files as before, its own MEMORY.md lines
reversed while lines added since stay (a memory written after the merge keeps its pointer); no MEMORY.md is left where
there was none before the merge, unless a line added since is in it. A team memory it brought that the sync server
holds now (pushed since) is retired instead of deleted (its text emptied, its pointers gone; a note says so) —
unless another folder of the merge syncs it with the same team: the team had it, so it is removed here only, not
emptied for the team, and the next team sync brings it back (a note says so).
Refused, with nothing written, for the reasons and in the sentences of undoing its turn with \`memdir undo\` (every
directory is checked before any is written): a memory file it changed was changed since (not one holding exactly the
text the undo puts back, as a team sync pulling a moved team memory back into the old folder leaves it), or a MEMORY.md line it wrote
was edited since (the sentence names MEMORY.md and the memory), or a conflict was resolved (unless
--overwrite-changed: what was there stays in history, and a note says which edited lines went), a memory it
brings back would sit beside another holding its name in another Unicode form, a file at a name it writes is not UTF-8 or is a
folder, or one directory is already as the undo would leave it while another is not (restore it first); or, with --home H,
when it was made in another home. A write the disk refuses (no permission, the disk full) puts back what it had already changed: whole or nothing.
Undoing its "Undo <kind> <id>" entry with \`memdir undo\` brings it back in every directory; undoing that takes it back again.
A dream whose last changes the undo took back (anyway, over them) is marked reverted (\`memdir dream list\`).
JSON: the merge record (see \`memdir relink --help\`; "undone": {"at", "revs"}, "redone": null) with "notes": [sentence]
(an edited line undone anyway, a memory retired).
${RECOVERED_HELP}`,
  async run({ positionals, values, io }) {
    const recovered = await finishTurnFirst(io);
    await checkHome(values, io, positionals[0]!);
    const id = positionals[0]!;
    const undone = await undoMerge(resolveDataDir(io.env), id, {
      overwriteChanged: values['overwrite-changed'] === true,
      anywayHow: `\`memdir merge undo ${id} --overwrite-changed\``,
    });
    // A dream whose changes the undo took back (undone anyway over it) says so in `memdir dream list`.
    const dreams = dreamsFor(io, homeFrom(values, io));
    for (const { memoryDir, entry } of await turnEntries(resolveDataDir(io.env), undone)) await dreams.followUndo(memoryDir, null, { entry, notes: [] });
    const record = await shownMergeRecord(undone);
    if (values.json) printJson(io, { ...record, ...recovered });
    else {
      io.out(`Undone: ${record.touched.map((t) => t.memoryDir).join(', ')} put back as before merge ${record.id}.\n`);
      for (const note of record.notes) io.out(`${note}\n`);
    }
    return 0;
  },
};

export const exportCommand: CommandSpec = {
  name: ['export'],
  summary: "Write a project's memory (private, team, agent) with its history into one archive (a tar), refused while it would carry a secret.",
  args: ['<project>', '<file>'],
  options: {
    home: homeOption,
    'without-history': { type: 'boolean', description: 'leave the history out: pack the current files only (still checked for secrets)' },
    allow: {
      type: 'string',
      multiple: true,
      valueName: 'FINGERPRINT',
      description: 'pack this finding anyway (its fingerprint, as the refusal prints it; repeat for several)',
    },
    json: jsonOption,
  },
  details: `The archive opens with \`tar xf\`: memdir-export/manifest.json (the project, its identity, each file and
its SHA-256), memory/ (MEMORY.md, topic files, team/), agents/<scope>/<type>/ (the agent memory at
the repository root), agents-in/<dir>/<scope>/<type>/ (that of each directory under the root the
sessions start in, <dir> its path from the root in one segment: app, packages%2Fweb) and
history/memory.bundle (the history as a git bundle). Agent memory of a launch directory outside the
root (a linked worktree) is not packed: a warning names it. An existing file is never replaced.
A folder for it that does not exist is made when its parent exists (and said); with its parent missing
too, the export is refused (a mistyped path), nothing written.
Everything it packs is checked first with the scanner of \`memdir secrets scan\`: every file (and its
name), the manifest, and every file of every revision in the history, and every revision's message —
a token you undid or edited out is still in the history. With any finding, nothing is written: each
is named in one sentence (the file, the revision and its date, the secret masked, its fingerprint).
To go on: remove the secret from the current files (and revoke it), export with --without-history
to leave the history out, or, for a finding that is not a secret, --allow <fingerprint>.
JSON: {"exported": true, "file", "project": {"dir", "path"}, "files", "bytes", "history", "createdFolder": path|null,
  "warnings": [sentence]}, or refused
  {"exported": false, "file", "project", "findings": [{"in": "file"|"history", "where": "content"|"name"|"message",
  "file"|null, "line"|null, "column"|null, "rev"|null, "time"|null, "stillInFile"|null, "title", "match", "rule",
  "severity", "fingerprint", "message"}]}
${RECOVERED_HELP}
Exit codes: 0 exported, 1 refused for secrets (nothing written), 2 error.`,
  async run({ positionals, values, io }) {
    const recovered = await finishTurnFirst(io);
    const ctx = await contextOf(values, io);
    const allow = Array.isArray(values.allow) ? values.allow : typeof values.allow === 'string' ? [values.allow] : [];
    const result = await exportProject(ctx, positionals[0]!, path.resolve(io.cwd, positionals[1]!), {
      withoutHistory: Boolean(values['without-history']),
      allow,
    });
    if (values.json) printJson(io, { ...result, ...recovered });
    else if (result.exported)
      io.out(
        `Exported ${plural(result.files, 'file')} of ${result.project.path ?? result.project.dir}${result.history ? ' with its history' : ' without its history'} to ${result.file}.\n` +
          (result.createdFolder ? `The folder ${result.createdFolder} did not exist: it was made for the archive.\n` : '') +
          result.warnings.map((w) => `${w}\n`).join(''),
      );
    else {
      for (const f of result.findings) io.out(`${f.message}\n`);
      const inHistory = result.findings.some((f) => f.in === 'history');
      const inFiles = result.findings.some((f) => f.in === 'file');
      // One secret is often in a file and in its history: counted once (a failed scan, without a fingerprint, each time).
      const secrets = new Set(result.findings.map((f, i) => f.fingerprint || `#${i}`)).size;
      io.out(
        `\nNothing was written: ${plural(secrets, 'secret')} would leave with the archive${result.findings.length > secrets ? ` (found in ${result.findings.length} places)` : ''}.` +
          (inFiles ? ' Remove or redact the secret in the current files (and revoke it if it is real), then export again.' : '') +
          (inHistory ? ' The history keeps every saved version: export with --without-history to leave it out (the current files are still checked).' : '') +
          ' A finding that is not a secret can be packed anyway with --allow <fingerprint>.\n',
      );
    }
    return result.exported ? EXIT_OK : EXIT_PROBLEMS;
  },
};

export const importCommand: CommandSpec = {
  name: ['import'],
  summary: 'Bring an exported archive into a project, through the relink merge.',
  args: ['<file>', '<project>'],
  options: { home: homeOption, yes: yesOption, force: forceOption, json: jsonOption },
  details: `Without --yes, shows what would happen. A damaged or foreign archive is refused, nothing written.
Agent memory goes to the same place under the project's root as it was exported from (agents-in/app/…
into app/.claude/…); a directory the project does not have is named in the warnings and left out.
The exported history is kept in the project's history as refs/memdir/imports/<id>.
${PLAN_JSON}`,
  async run({ positionals, values, io }) {
    const ctx = await contextOf(values, io);
    const file = path.resolve(io.cwd, positionals[0]!);
    return previewOrApply(
      io,
      values,
      () => planImport(ctx, file, positionals[1]!),
      () => importArchive(ctx, file, positionals[1]!, { force: Boolean(values.force) }),
    );
  },
};

export const RELINK_COMMANDS = [
  orphansCommand,
  relinkCommand,
  mergeCommand,
  mergeListCommand,
  mergeConflictsCommand,
  mergeResolveCommand,
  mergeUndoCommand,
  exportCommand,
  importCommand,
];
