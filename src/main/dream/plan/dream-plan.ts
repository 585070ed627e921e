/**
 * A dream's staged changes (R-DREAM-PHASES + "a dream is a transaction"): every phase writes
 * here, never to disk. Apply later writes the net result in one step; a dry run or a dream that
 * needs confirmation shows it and writes nothing.
 */
import type { DreamChange } from '../../../shared/contract/dream.js';
import type { Scope } from '../../../shared/memory-types.js';
import { INDEX_FILE } from '../../../shared/limits.js';
import { type MemorySnapshot, readCurrent, scopeOf } from './memory-snapshot.js';

/** One staged change with its content. */
export interface StagedChange {
  file: string;
  action: 'create' | 'update' | 'delete';
  kind: DreamChange['kind'];
  reason: string;
  group: string | null;
  /** Content as Orient read it (null: absent). */
  before: string | null;
  /** Content to write (null: remove). */
  after: string | null;
}

interface Staged {
  after: string | null;
  reasons: string[];
  kind: DreamChange['kind'];
  group: string | null;
}

const KIND_RANK: Record<DreamChange['kind'], number> = { index: 0, dates: 1, merge: 2, model: 3 };

/** What a phase says about a change it stages. */
export interface ChangeMeta {
  kind: DreamChange['kind'];
  reason: string;
  group?: string | null;
}

/** The staged state: the snapshot with the dream's edits on top. */
export class DreamPlan {
  readonly #staged = new Map<string, Staged>();

  constructor(readonly snapshot: MemorySnapshot) {}

  /** The file's content in the staged state (null: absent or removed). */
  text(rel: string): string | null {
    const staged = this.#staged.get(rel);
    if (staged) return staged.after;
    return this.snapshot.files.get(rel)?.text ?? null;
  }

  /** Whether the staged state has the file. Unreadable files of the snapshot count as present. */
  exists(rel: string): boolean {
    const staged = this.#staged.get(rel);
    if (staged) return staged.after !== null;
    return this.snapshot.files.has(rel) || this.snapshot.notFiles.has(rel);
  }

  /**
   * Whether a pointer's target is there: what {@link exists} says, and for a file Orient does not
   * read (in a subfolder: `retros/x.md`) the disk, as apply judges it (so a dry run drops no
   * pointer the dream keeps).
   */
  pointerTargetExists(rel: string): boolean {
    if (this.#staged.has(rel) || this.snapshot.files.has(rel) || this.snapshot.notFiles.has(rel)) return this.exists(rel);
    return readCurrent(this.snapshot.memoryDir, rel).text !== null;
  }

  write(rel: string, text: string, meta: ChangeMeta): void {
    this.#stage(rel, text, meta);
  }

  remove(rel: string, meta: ChangeMeta): void {
    this.#stage(rel, null, meta);
  }

  #stage(rel: string, after: string | null, meta: ChangeMeta): void {
    // What Orient could not read is never written over, whoever proposes it (a rule, the model, Prune).
    if (this.snapshot.files.get(rel)?.problem || this.snapshot.notFiles.has(rel)) return;
    const previous = this.#staged.get(rel);
    const kind = previous && KIND_RANK[previous.kind] > KIND_RANK[meta.kind] ? previous.kind : meta.kind;
    // A file that ends up removed is explained by its removal alone (earlier edits no longer matter).
    const reasons = previous && after !== null ? [...previous.reasons, meta.reason] : [meta.reason];
    this.#staged.set(rel, { after, reasons, kind, group: previous?.group ?? meta.group ?? null });
  }

  /** Drops a staged change (and returns its group, so the caller can drop the rest of it). */
  discard(rel: string): string | null {
    const staged = this.#staged.get(rel);
    this.#staged.delete(rel);
    return staged?.group ?? null;
  }

  /** Relative paths staged in a group. */
  groupMembers(group: string): string[] {
    return [...this.#staged].filter(([, s]) => s.group === group).map(([rel]) => rel);
  }

  /** Ties a staged change to a group (a merge the model did in two calls). */
  setGroup(rel: string, group: string): void {
    const staged = this.#staged.get(rel);
    if (staged && staged.group === null) staged.group = group;
  }

  /** Topic files (relative paths) present in the staged state, in one scope. */
  topicRels(scope: Scope): string[] {
    const rels = new Set<string>();
    for (const f of this.snapshot.files.values()) if (f.kind === 'topic' && f.scope === scope) rels.add(f.rel);
    for (const rel of this.#staged.keys()) {
      const s = scopeOf(rel);
      if (s.scope === scope && s.name !== INDEX_FILE) rels.add(rel);
    }
    return [...rels].filter((rel) => this.exists(rel)).sort();
  }

  /** The net changes against the snapshot (writes of unchanged content dropped), by file. */
  changes(): StagedChange[] {
    const out: StagedChange[] = [];
    for (const [file, s] of this.#staged) {
      const before = this.snapshot.files.get(file)?.text ?? null;
      const existed = this.snapshot.files.has(file);
      if (s.after === null && !existed) continue;
      if (s.after !== null && existed && s.after === before) continue;
      out.push({
        file,
        action: s.after === null ? 'delete' : existed ? 'update' : 'create',
        kind: s.kind,
        reason: [...new Set(s.reasons)].join(' '),
        group: s.group,
        before,
        after: s.after,
      });
    }
    return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  }
}
