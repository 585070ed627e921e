/**
 * A team at work, for the fault-injection test (issue 15) and the `team-load` and `sync-faults`
 * bench scenarios (issues 15, 19): N clients, each on its own home, edit and sync in parallel
 * rounds, then the run is settled (every client syncs until nothing moves) and every edit is
 * looked for, one by one: on the server, kept as a conflict by the client that made it, still
 * pending on that client — or lost.
 *
 * The mix, per client and round: a line added to its own file (nobody else touches it), a line
 * added to its own section of `shared.md` (every client edits that file) and of its group's file
 * (about 8 clients share one); and now and then a line added at the end of the group file's log,
 * where two clients of a group can write at the same place at once — the only edits that
 * overlap in lines. Every added line is unique, so where it ends up tells where the edit went.
 */
import type { SyncReport } from '../../../shared/contract/team.js';
import type { TeamSyncOptions } from '../team-sync.js';
import { type TestClient, makeClient, serverEntries } from './team-fixture.js';

export type EditKind = 'own' | 'shared' | 'group' | 'log';

export interface LoadEdit {
  client: number;
  round: number;
  key: string;
  kind: EditKind;
  line: string;
}

export interface LoadSpec {
  root: string;
  /** Base URLs the clients talk to, client i to `urls[i % urls.length]` (two servers, a proxy…). */
  urls: string[];
  /** Where the ledger reads the truth from (a server, never the proxy). */
  truthUrl: string;
  team: string;
  tokens: string[];
  clients: number;
  rounds: number;
  /** Share of client-rounds that also add a line to their group's log (default 0.15). */
  logShare?: number;
  seed?: number;
  clientOptions?: Partial<TeamSyncOptions>;
  /** Before each round (a test turns faults on here). */
  onRound?: (round: number) => void | Promise<void>;
  /** Before the team is set up and before the run is settled (a test turns faults off here: both need a server that answers). */
  onSettle?: () => void | Promise<void>;
  /** After each sync of a round (round -1: setup; `rounds`: settling), with its report. */
  onSync?: (client: number, round: number, report: SyncReport) => void;
}

export interface LoadLedger {
  edits: number;
  onServer: number;
  conflict: number;
  pending: number;
  lost: LoadEdit[];
  byKind: Record<EditKind, { edits: number; onServer: number; conflict: number; pending: number; lost: number }>;
  /** Edits to a file only its client touches that were on the server at the end of their own round. */
  ownLandedInRound: number;
  ownEdits: number;
  /** Conflicts opened, and how many of them hold an edit that overlapped nobody (must be 0 with line merges). */
  conflicts: number;
  conflictsWithoutOverlap: number;
  /** Those conflicts: whose, which file, when, and the edits they hold that are missing from the server. */
  avoidable: { client: number; key: string; id: string; createdAt: string; missing: LoadEdit[] }[];
  /** Syncs that ended with "the team memory kept changing" (412s given up on). */
  staleExits: number;
  /** Error codes of syncs during the rounds (faults make some: network, unavailable…). */
  errors: Record<string, number>;
  syncs: number;
  settlePasses: number;
  converged: boolean;
}

function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const header = (i: number): string => `## c${i}`;

/** A file with one section per member and a log at the end. */
function skeleton(title: string, members: number[], log: boolean): string {
  return `# ${title}\n\n${members.map((i) => `${header(i)}\n\n`).join('')}${log ? '## log\n' : ''}`;
}

/** `text` with `line` added at the end of section `section` (before the next `## ` heading, or at the end). */
function addToSection(text: string, section: string, line: string): string {
  const lines = text.split('\n');
  const at = lines.indexOf(section);
  if (at < 0) return `${text}${text.endsWith('\n') ? '' : '\n'}${line}\n`;
  let end = at + 1;
  while (end < lines.length && !lines[end]!.startsWith('## ')) end++;
  // Keep the blank line that separates sections: insert before it.
  const insertAt = end < lines.length ? end - 1 : lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  lines.splice(insertAt, 0, line);
  return lines.join('\n');
}

/** Run the team (see the file comment) and count every edit. */
export async function runTeamLoad(spec: LoadSpec): Promise<LoadLedger> {
  const groups = Math.max(1, Math.ceil(spec.clients / 8));
  const groupOf = (i: number): number => i % groups;
  const members = (g: number): number[] => Array.from({ length: spec.clients }, (_, i) => i).filter((i) => groupOf(i) === g);
  const clients: TestClient[] = [];
  for (let i = 0; i < spec.clients; i++) {
    clients.push(await makeClient(spec.root, `c${i}`, { url: spec.urls[i % spec.urls.length]!, team: spec.team }, spec.tokens[i]!, spec.clientOptions ?? {}));
  }
  const everyone = Array.from({ length: spec.clients }, (_, i) => i);
  const edits: LoadEdit[] = [];
  const errors: Record<string, number> = {};
  let staleExits = 0;
  let syncs = 0;
  let ownLandedInRound = 0;
  const count = (report: SyncReport): void => {
    syncs++;
    if (report.error) errors[report.error.code] = (errors[report.error.code] ?? 0) + 1;
    if (report.error?.code === 'stale') staleExits++;
  };

  // The shared files exist before the team starts (a file everyone edits is one the team already has).
  await clients[0]!.write('shared.md', skeleton('shared', everyone, false));
  for (let g = 0; g < groups; g++) await clients[0]!.write(`group-${g}.md`, skeleton(`group ${g}`, members(g), true));
  await spec.onSettle?.();
  for (const client of clients) {
    const report = await client.sync.sync();
    spec.onSync?.(clients.indexOf(client), -1, report);
    if (report.error) throw new Error(`the team could not be set up: ${report.error.message}`);
  }

  for (let round = 0; round < spec.rounds; round++) {
    await spec.onRound?.(round);
    const roundEdits: LoadEdit[] = [];
    await Promise.all(
      clients.map(async (client, i) => {
        const random = rng((spec.seed ?? 7) * 1000 + i * 97 + round);
        const g = groupOf(i);
        const add = async (key: string, kind: EditKind, section: string, fresh: () => string): Promise<void> => {
          const line = `- c${i} r${round} ${kind} ${key}`;
          const current = (await client.read(key)) ?? fresh();
          await client.write(key, addToSection(current, section, line));
          roundEdits.push({ client: i, round, key, kind, line });
        };
        await add(`own-c${i}.md`, 'own', '# own', () => `# own\n`);
        await add('shared.md', 'shared', header(i), () => skeleton('shared', everyone, false));
        await add(`group-${g}.md`, 'group', header(i), () => skeleton(`group ${g}`, members(g), true));
        if (random() < (spec.logShare ?? 0.15)) await add(`group-${g}.md`, 'log', '## log', () => skeleton(`group ${g}`, members(g), true));
        // Editors do not all save at the same millisecond.
        await new Promise((r) => setTimeout(r, Math.floor(random() * 20)));
        const report = await client.sync.sync();
        spec.onSync?.(i, round, report);
        count(report);
      }),
    );
    edits.push(...roundEdits);
    const truth = await serverEntries(spec.truthUrl, spec.team, spec.tokens[0]!);
    for (const edit of roundEdits) if (edit.kind === 'own' && truth[edit.key]?.split('\n').includes(edit.line)) ownLandedInRound++;
  }

  // Settle: every client syncs until a whole pass moves nothing.
  await spec.onSettle?.();
  let converged = false;
  let settlePasses = 0;
  for (; settlePasses < 12 && !converged; settlePasses++) {
    converged = true;
    for (const [i, client] of clients.entries()) {
      const report = await client.sync.sync();
      spec.onSync?.(i, spec.rounds, report);
      if (report.error || report.push.uploaded.length > 0 || report.pull.written.length > 0 || report.pull.status === 200) converged = false;
    }
  }

  // The ledger.
  const truth = await serverEntries(spec.truthUrl, spec.team, spec.tokens[0]!);
  const kept = await Promise.all(
    clients.map(async (client) => {
      const { conflicts } = await client.sync.inspect();
      return Promise.all(
        conflicts.map(async (c) => ({ key: c.key, id: c.id, createdAt: c.createdAt, mine: (await client.sync.conflictDetail(c.id)).mine.split('\n') })),
      );
    }),
  );
  const local = await Promise.all(clients.map((client) => client.files()));
  const kinds: EditKind[] = ['own', 'shared', 'group', 'log'];
  const byKind = Object.fromEntries(kinds.map((k) => [k, { edits: 0, onServer: 0, conflict: 0, pending: 0, lost: 0 }])) as LoadLedger['byKind'];
  const ledger: LoadLedger = {
    edits: edits.length,
    onServer: 0,
    conflict: 0,
    pending: 0,
    lost: [],
    byKind,
    ownLandedInRound,
    ownEdits: edits.filter((e) => e.kind === 'own').length,
    conflicts: kept.reduce((n, list) => n + list.length, 0),
    conflictsWithoutOverlap: 0,
    avoidable: [],
    staleExits,
    errors,
    syncs,
    settlePasses,
    converged,
  };
  for (const edit of edits) {
    const row = byKind[edit.kind];
    row.edits++;
    if (truth[edit.key]?.split('\n').includes(edit.line)) {
      ledger.onServer++;
      row.onServer++;
    } else if (kept[edit.client]!.some((c) => c.key === edit.key && c.mine.includes(edit.line))) {
      ledger.conflict++;
      row.conflict++;
    } else if (local[edit.client]![edit.key]?.split('\n').includes(edit.line)) {
      ledger.pending++;
      row.pending++;
    } else {
      ledger.lost.push(edit);
      row.lost++;
    }
  }
  // A conflict whose kept copy holds no overlapping edit that is missing from the server was avoidable.
  for (const [i, list] of kept.entries()) {
    for (const c of list) {
      const missing = edits.filter((e) => e.client === i && e.key === c.key && c.mine.includes(e.line) && !truth[e.key]?.split('\n').includes(e.line));
      if (missing.length > 0 && missing.every((e) => e.kind !== 'log')) {
        ledger.conflictsWithoutOverlap++;
        ledger.avoidable.push({ client: i, key: c.key, id: c.id, createdAt: c.createdAt, missing });
      }
    }
  }
  return ledger;
}

/** One line for logs. */
export function describeLedger(label: string, l: LoadLedger): string {
  return `${label}: ${l.edits} edits — ${l.onServer} on the server, ${l.conflict} kept as conflicts, ${l.pending} pending, ${l.lost.length} lost; own-file edits landed in their round ${l.ownLandedInRound}/${l.ownEdits}; ${l.conflicts} conflicts (${l.conflictsWithoutOverlap} without overlapping lines); ${l.staleExits} stale exits; errors ${JSON.stringify(l.errors)}; settled in ${l.settlePasses} passes${l.converged ? '' : ' (NOT converged)'}`;
}
