/**
 * The memories a bulk change left as they were, grouped by why: a select-all of 3,000 that left
 * 12 said all twelve sentences in one line of the notice — a wall in which no file could be found.
 * Each group is one reason, said once, and the files it kept, each named.
 */

/** One reason and the files it kept (as the memory directory names them: `team/x.md` for a team memory). */
export interface RefusalGroup {
  why: string;
  files: string[];
}

/** Groups `refused` (the host's sentences, each naming its file) by what each says of its file, in the order first met. */
export function groupRefusals(refused: readonly { scope: 'private' | 'team'; file: string; reason: string }[]): RefusalGroup[] {
  const groups = new Map<string, RefusalGroup>();
  for (const r of refused) {
    const name = r.scope === 'team' ? `team/${r.file}` : r.file;
    const why = reasonWithoutName(r.reason, name, r.file);
    const group = groups.get(why) ?? { why, files: [] };
    group.files.push(name);
    groups.set(why, group);
  }
  return [...groups.values()];
}

/** The host's sentence with the file's name taken out: "x.md: its frontmatter…" → "Its frontmatter…", "x.md does not exist." → "This memory does not exist." */
function reasonWithoutName(reason: string, ...names: string[]): string {
  for (const name of names) {
    if (reason.startsWith(`${name}: `)) return capitalized(reason.slice(name.length + 2));
    if (reason.startsWith(`${name} `)) return `This memory ${reason.slice(name.length + 1)}`;
  }
  for (const name of names) if (reason.includes(name)) return reason.split(name).join('this memory');
  return reason;
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One line per reason for the notice's "Show which and why": the reason, then every file it kept. */
export function refusalLines(groups: readonly RefusalGroup[]): string[] {
  return groups.map((g) => `${g.why.replace(/\.$/, '')} (${g.files.length.toLocaleString('en-US')}): ${g.files.join(', ')}`);
}
