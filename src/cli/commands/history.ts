import type { TakenBack } from '../../main/team/index.js';
import { type CommandSpec, homeOption, jsonOption, printJson, wholeNumberOption } from '../command.js';
import { plural, table } from '../format.js';
import { locateProject, MemoryError, restoreRevision } from '../../main/memdir/index.js';
import { MemdirError } from '../../shared/errors.js';
import { homeFrom } from './scan.js';
import { dreamsFor } from './dream.js';
import { listHistory, recordExternalChanges } from '../../main/history/index.js';
import { resolveDataDir } from '../../main/core/index.js';
import { importedHistories, retireForRestore, undoHistoryEntry } from '../../main/relink/index.js';
import { finishTurnFirst, RECOVERED_HELP } from './relink.js';

export const historyCommand: CommandSpec = {
  name: ['history'],
  summary: "List the recorded changes of a project's memory, newest first (outside changes are recorded first).",
  args: ['<project>'],
  options: {
    home: homeOption,
    file: { type: 'string', valueName: 'F', description: 'only changes touching this file (relative to the memory dir)' },
    limit: { type: 'string', valueName: 'N', description: 'at most N entries (default 50)' },
    json: jsonOption,
  },
  details: `Every change made through Memdir is recorded with its source (manual, external, extract, dream,
restore, fix, sync, …) in a shadow git repository in Memdir's data directory — never in your repo.
The history an import brought in (\`memdir import\`) is listed after it, newest import first; restore from
it with \`memdir restore <project> <rev> [file]\` as from the project's own. An import undone with
\`memdir merge undo\` is still listed, marked undone, to read: a restore from its history is refused.
JSON: {"memoryDir", "entries": [<entry>], "imported": [{"id", "rev", "source", "importedAt", "undone", "entries": [<entry>]}]},
an entry being {"rev", "time", "source", "summary", "files": [{"path", "status", "from"?}]}; "imported" is [] when
nothing was imported ("source" and "importedAt" null when the import's merge record is gone; "undone" true
once the import was undone).`,
  async run({ positionals, values, io }) {
    const home = homeFrom(values, io);
    const loc = await locateProject(home, positionals[0]!, io.env);
    const limit = wholeNumberOption(values, 'limit', { min: 1, max: 100_000 }, 50)!;
    // Catch up with changes made outside Memdir before showing the timeline.
    const dataDir = resolveDataDir(io.env);
    if (loc.existing) await recordExternalChanges(loc.memoryDir, { dataDir });
    const only = typeof values.file === 'string' ? { file: values.file } : {};
    const [entries, imported] = await Promise.all([
      listHistory(loc.memoryDir, { limit, dataDir, ...only }),
      importedHistories(loc.memoryDir, { limit, dataDir, ...only }),
    ]);
    if (values.json) {
      printJson(io, { memoryDir: loc.memoryDir, entries, imported });
      return 0;
    }
    const rows = (list: typeof entries) =>
      table([['REV', 'WHEN', 'SOURCE', 'CHANGE'], ...list.map((e) => [e.rev.slice(0, 10), e.time.replace('T', ' ').slice(0, 19), e.source, e.summary])]);
    if (entries.length === 0) {
      const recorded = typeof values.file === 'string' ? (await listHistory(loc.memoryDir, { limit: 100_000, dataDir })).length : 0;
      io.out(
        recorded > 0
          ? `No recorded change touches ${values.file as string} in ${loc.memoryDir} (${plural(recorded, 'change')} ${recorded === 1 ? 'is' : 'are'} recorded).\n`
          : `No history yet for ${loc.memoryDir}.\n`,
      );
    } else io.out(rows(entries));
    for (const h of imported) {
      const from = `import ${h.id}${h.source ? `, from ${h.source}` : ''}`;
      io.out(
        h.undone
          ? `\nImported history (${from}; undone with memdir merge undo: listed to read, nothing is restored from it)\n`
          : `\nImported history (${from}): restore from it with memdir restore ${positionals[0]} <rev> [file]\n`,
      );
      io.out(rows(h.entries));
    }
    return 0;
  },
};

export const restoreCommand: CommandSpec = {
  name: ['restore'],
  summary: 'Restore one memory file, or the whole memory directory, as it was at a revision from `memdir history`.',
  args: ['<project>', '<rev>', '[file]'],
  options: {
    home: homeOption,
    as: { type: 'string', valueName: 'NAME', description: 'restore the file under this free name instead (its pointer names it)' },
    'overwrite-changed': {
      type: 'boolean',
      description: 'overwrite another memory written at its name since it left, or an edit made outside Memdir since (kept in history)',
    },
    json: jsonOption,
  },
  details: `A memory file restored alone gets its MEMORY.md pointer back too, at its old place when it
still reaches the agent there (else at the end); "notes" say where. The pointer is the line the index last
had for it (deleted outside Memdir, its line may have gone first); a memory no index ever listed gets a new one.
When its name holds another memory written since it was deleted or renamed away (by Claude Code, say), the
restore stops (exit 2, nothing written), naming it: --as NAME restores it under another name beside it,
--overwrite-changed restores anyway (what is there now stays in history). A memory holding an edit made
outside Memdir since <rev> (Claude Code's) with no change of yours after it (a later extract, dream or sync
does not count) stops the same way, naming when — unless restoring would leave the file as it is.
A whole-snapshot restore retires a team memory the sync server holds instead of removing it (its text emptied;
removed, the next sync would bring it back), and a note says so — unless the restore takes back a merge whose other
folder syncs it with the same team (as merge undo: removed here only, the next team sync brings it back).
The restore is itself recorded in history (source "restore"), so \`memdir undo <project> <its rev>\` undoes it.
A restore that takes back the last of a dream's changes marks the dream reverted (\`memdir dream list\`).
A restore of a file to before a team or personal sync conflict's resolution (the file alone, or the whole directory)
opens that conflict again, as \`memdir undo\` of the resolution does (yours still kept, to choose again; a note says
so); undoing the restore resolves it again.
JSON: {"restored": {"rev", "time", "source", "summary", "files": [{"path", "status", "from"?}]} (the history entry it wrote, as
\`memdir history\` lists it) or null when nothing changed, "notes": [sentence]}`,
  async run({ positionals, values, io }) {
    const home = homeFrom(values, io);
    const loc = await locateProject(home, positionals[0]!, io.env);
    const [, rev, file] = positionals as [string, string, string | undefined];
    const dataDir = resolveDataDir(io.env);
    const as = typeof values.as === 'string' ? values.as : undefined;
    // A whole snapshot asks the shared-key rule: a held team memory it would remove is retired (R-SYNC).
    const retire = file ? undefined : await retireForRestore(loc.memoryDir, dataDir, rev);
    const { entry, notes } = await restoreRevision({
      memoryDir: loc.memoryDir,
      dataDir,
      rev,
      ...(file ? { file } : {}),
      ...(as !== undefined ? { as } : {}),
      ...(values['overwrite-changed'] === true ? { overwriteChanged: true } : {}),
      ...(retire ? { retire } : {}),
    }).catch((error: unknown) => {
      if (error instanceof MemoryError && error.code === 'conflict') {
        throw new MemdirError(error.code, error.message, {
          hint: 'Run it again with --as <new name>, or with --overwrite-changed to restore anyway.',
          cause: error,
        });
      }
      throw error;
    });
    // A dream whose changes the restore took back says so in `memdir dream list`.
    await dreamsFor(io, home).followUndo(loc.memoryDir, null, { entry, notes });
    // A sync conflict resolved after that point is open again, as its Undo opens it (undoing the restore resolves it again).
    if (entry) notes.push(...(await followTakenBack(loc.memoryDir, dataDir, { restoredTo: rev }, entry.rev)));
    if (values.json) printJson(io, { restored: entry, notes });
    else {
      io.out(
        entry
          ? `Restored ${file ?? 'the memory directory'}${file && as ? ` as ${as}` : ''} to ${rev} (${plural(entry.files.length, 'file')} changed; undo with: memdir undo ${positionals[0]} ${entry.rev.slice(0, 10)}).\n`
          : 'Nothing to restore: it is already that way.\n',
      );
      for (const note of notes) io.out(`${note}\n`);
    }
    return 0;
  },
};

export const undoCommand: CommandSpec = {
  name: ['undo'],
  summary: 'Undo one recorded change (a delete, a restore, a dream, a bulk change…): its files and its index lines go back, as a new entry.',
  args: ['<project>', '<rev>'],
  options: {
    home: homeOption,
    'overwrite-changed': { type: 'boolean', description: 'also put back files changed since (their later content stays in history)' },
    json: jsonOption,
  },
  details: `<rev> is an entry from \`memdir history\`. MEMORY.md is reversed line by line (a three-way merge): every line
the entry removed comes back at its place (pointers, prose, headings, order), every line it added goes, and lines
added since are kept; a pointer it removed goes back at its old place when it still reaches the agent there. A
line both the entry and a later edit changed stops the undo (exit 2), quoting it; --overwrite-changed puts it back.
A pointer line it wrote and someone edited since, which the undo would take away with its memory, stops it too
(naming MEMORY.md and the memory; --overwrite-changed takes it away, and a note says so). No MEMORY.md is left
where there was none before the change unless a line added since is in it, nor one the undo empties.
A memory file a later change touched (edited, deleted, renamed, written again) stops the undo (exit 2, nothing
written), naming that change: undo the later changes first, newest first, or pass --overwrite-changed. One written
again with exactly the text the undo puts back (a team sync pulled it back, say) lost nothing and does not stop it. Undoing
anyway a rename whose memory a later change edited, deleted or renamed on brings the memory back once, under its
old name and as it is now (a rename undone changes the name, not the text): its later name goes, and the later
deletes and renames count as undone (never a second copy) — undoing one of the later edits takes it out of the
memory where it is back; another memory written at the new name since stays. A change already undone
(its files all as before it) writes nothing. An undo that would take away a team memory the sync server
holds retires it instead (its text emptied, its pointers gone; a note says so).
The undo is itself an entry (source "restore"): undo it to redo. Undoing the "Undo import <id>" entry of
\`memdir merge undo\` brings the import back whole: its memories, and its history to restore from; undoing
that redo takes it back again (\`memdir merge list\` says undone), at any depth. A relink or merge turns as one:
undoing its entry in one project undoes the matching entry in every directory it changed (refused, nothing
written, when a file there changed since, unless --overwrite-changed, or when the undo there would be refused,
or when one directory is already as the turn would leave it (its memory deleted by hand since; restore it first):
every directory is checked first; a write the disk refuses puts back what was already changed, and says so); an entry of an older turn than its latest
is refused, naming the latest turn's entry. Undoing a merge's own entry while it stands is \`memdir merge undo\`
(refused for the same reasons, in the same sentences; a file it wrote changed since is overwritten with --overwrite-changed:
then undone whole anyway, kept in history).
Undoing a dream's entry marks the dream reverted (\`memdir dream list\`); undoing that undo, or a dream revert's
entry, marks it back (its Revert works again) — in every directory a relink or merge turned with it, each dream by its own entry there.
Undoing the entry of a team or personal sync conflict's resolution (\`memdir team|personal resolve\`, the app's) opens the
conflict again (yours still kept, to choose again; a note says so), as the app's Undo does; undoing that undo resolves
it again. While it is open the file holds the synced version as the pull left it: the next sync does not push it back.
JSON: {"undone": {"rev", "time", "source", "summary", "files": [{"path", "status", "from"?}]} (the history entry it wrote, as
\`memdir history\` lists it) or null when nothing changed, "notes": [sentence]}
${RECOVERED_HELP}`,
  async run({ positionals, values, io }) {
    const recovered = await finishTurnFirst(io);
    const home = homeFrom(values, io);
    const loc = await locateProject(home, positionals[0]!, io.env);
    const { entry, notes } = await undoHistoryEntry({
      memoryDir: loc.memoryDir,
      dataDir: resolveDataDir(io.env),
      rev: positionals[1]!,
      overwriteChanged: values['overwrite-changed'] === true,
    })
      .then(async (done) => {
        // A dream whose entry this undid (or whose revert it undid) says so in `memdir dream list`.
        await dreamsFor(io, home).followUndo(loc.memoryDir, positionals[1]!, done);
        // A sync conflict whose resolution this undid is open again (a Redo resolves it again), as History's Undo does.
        const reopened = await followTakenBack(loc.memoryDir, resolveDataDir(io.env), { undone: positionals[1]! }, done.entry?.rev ?? null);
        return { ...done, notes: [...done.notes, ...reopened] };
      })
      .catch((error: unknown) => {
        // The app offers "Undo anyway" on the conflict; here it is a flag.
        if (error instanceof MemoryError && error.code === 'conflict') {
          throw new MemdirError(error.code, error.message, { hint: 'Run it again with --overwrite-changed to undo anyway.', cause: error });
        }
        throw error;
      });
    if (values.json) printJson(io, { undone: entry, notes, ...recovered });
    else {
      io.out(entry ? `${entry.summary} (${plural(entry.files.length, 'file')} changed).\n` : 'Nothing to undo: it is already that way.\n');
      for (const note of notes) io.out(`${note}\n`);
    }
    return 0;
  },
};

/**
 * After `memdir undo` or `memdir restore` (`taken`, by the new entry `by`): the team and personal sync
 * conflicts of the project follow it through their sync client's own rule (TeamSync `followUndo`, the
 * one the app's engines run), opened here for what needs no server; a note for each it opened or
 * resolved again. Loaded only when one is done.
 */
async function followTakenBack(memoryDir: string, dataDir: string, taken: TakenBack, by: string | null): Promise<string[]> {
  const { ConnectionStore, TeamSync } = await import('../../main/team/index.js');
  const { openPersonalSyncLocal, personalConnections } = await import('../../main/personal/index.js');
  const notes: string[] = [];
  const team = await new ConnectionStore(dataDir).forMemoryDir(memoryDir);
  if (team) notes.push(...(await (await TeamSync.open({ connection: team, token: '', dataDir, dir: team.dir })).followUndo(taken, by)));
  const personal = await personalConnections(dataDir).forMemoryDir(memoryDir);
  if (personal) notes.push(...(await (await openPersonalSyncLocal(personal, dataDir)).followUndo(taken, by)));
  return notes;
}
