/**
 * The four memory types and their scopes (SPEC R-TYPES, R-TOPIC).
 */
export const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

/** Where a memory lives: the private memory dir, or `memory/team/` shared through sync. */
export const SCOPES = ['private', 'team'] as const;
export type Scope = (typeof SCOPES)[number];

export function isMemoryType(value: unknown): value is MemoryType {
  return typeof value === 'string' && (MEMORY_TYPES as readonly string[]).includes(value);
}

/**
 * R-TYPES: the scope a new memory of this type gets unless the user chooses otherwise.
 * `user` is always private; `feedback` private by default; `project` and `reference` lean team.
 */
export function defaultScope(type: MemoryType): Scope {
  return type === 'project' || type === 'reference' ? 'team' : 'private';
}

/** R-TYPES: `user` memories never go to the team. Returns a reason when the scope is refused. */
export function scopeRefusal(type: MemoryType | null, scope: Scope): string | null {
  if (scope === 'team' && type === 'user') {
    return 'A "user" memory describes you personally and always stays private; it cannot be shared with the team.';
  }
  return null;
}

/** One line per type, shown in forms and given to models that write memories. */
export const TYPE_DESCRIPTIONS: Record<MemoryType, string> = {
  user: 'Who the user is: role, expertise, preferences. Always private.',
  feedback: 'Behaviour the user corrected or confirmed. Private unless clearly a project-wide convention.',
  project: 'What is going on in the project: deadlines, decisions, constraints. Usually shared with the team.',
  reference: 'Where external resources are: dashboards, docs, tickets. Usually shared with the team.',
};

/** Files often carry their type as a name prefix (`feedback_testing.md`); R-TOPIC. */
export function typeFromFileName(file: string): MemoryType | null {
  const base = file.split('/').pop() ?? file;
  const match = /^(user|feedback|project|reference)[_-]/i.exec(base);
  return match ? (match[1]!.toLowerCase() as MemoryType) : null;
}

/**
 * Whether a topic file of `bytes` in `scope` is a retired team memory (R-SYNC): emptied, the way a
 * team memory the sync server holds is taken away (deletions do not propagate). It is no memory:
 * listed nowhere, offered by no recall, given no pointer.
 */
export function isRetiredMemory(scope: Scope, bytes: number): boolean {
  return scope === 'team' && bytes === 0;
}
