/**
 * The generated inputs of the fuzz targets (test/fuzz/targets.ts): for each parser of outside
 * data, fast-check arbitraries that are mostly almost right — the shapes real files and peers
 * have, with hostile values — and partly plain noise.
 */
import fc from 'fast-check';

// ---- pieces of almost-right input ---------------------------------------------------------

const noise = fc.string({ unit: 'binary', maxLength: 300 });
const word = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    '~',
    'true',
    '0',
    '-1',
    '1e400',
    '\u202e',
    '\u001b[2J',
    '\uFEFF',
    '\uD800',
    '../../etc/passwd',
    'C:\\x',
    '%2e%2e%2f',
    '${x}',
    '<!--',
    '---',
  ),
);
const json = fc.jsonValue({ maxDepth: 4 });

/** A YAML-ish frontmatter block: real keys with odd values, nesting, and noise lines. */
export const frontmatterText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.array(
          fc.oneof(
            fc
              .tuple(
                fc.constantFrom('name', 'description', 'type', 'originSessionId', 'created', 'modified', 'metadata'),
                fc.oneof(
                  word,
                  fc.constantFrom(
                    'user',
                    'feedback',
                    'project',
                    'reference',
                    '[a, b]',
                    '{x: 1}',
                    '"q: x"',
                    "'it''s'",
                    '|',
                    '>-',
                    '&a',
                    '*a',
                    '!!binary eA==',
                    'a: b: c',
                    '2026-03-05',
                  ),
                ),
              )
              .map(([k, v]) => `${k}: ${v}`),
            fc.tuple(fc.constantFrom('type', 'originSessionId', 'modified'), word).map(([k, v]) => `  ${k}: ${v}`),
            word,
          ),
          { maxLength: 12 },
        ),
        fc.string({ maxLength: 200 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([lines, body, eol, bom, closed]) => `${bom ? '\uFEFF' : ''}---${eol}${lines.join(eol)}${eol}${closed ? `---${eol}` : ''}${body}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.constantFrom('user', 'feedback', 'project', 'reference'),
        fc.boolean(),
        fc.string({ maxLength: 200 }),
      )
      .map(([name, description, type, nested, body]) =>
        nested
          ? `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\nmetadata:\n  type: ${type}\n---\n${body}`
          : `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\ntype: ${type}\n---\n${body}`,
      ),
  },
  { weight: 1, arbitrary: noise },
);

/** MEMORY.md text: pointer lines in every form, near misses, headings and noise. */
export const indexText = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.tuple(word, word, word).map(([t, f, h]) => `- [${t}](${f}.md) — ${h}`),
        fc.tuple(word, word).map(([t, f]) => `* [${t}](<${f}>) - x`),
        fc.tuple(word, word).map(([t, f]) => `- [${t}](${f}`),
        fc.tuple(word, word).map(([t, f]) => `+ ${t} ${f}.md`),
        word,
      ),
      { maxLength: 40 },
    ),
    fc.constantFrom('\n', '\r\n'),
    fc.boolean(),
  )
  .map(([lines, eol, bom]) => (bom ? '\uFEFF' : '') + lines.join(eol));

/** A transcript line: records of every known type with odd fields, unknown types, cut lines, noise. */
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: word }),
  fc.record({ type: fc.constant('tool_use'), id: word, name: fc.oneof(word, fc.constantFrom('Write', 'Edit', 'MultiEdit', 'Bash')), input: json }),
  fc.record({ type: fc.constant('tool_result'), tool_use_id: word, content: fc.oneof(word, json), is_error: fc.oneof(fc.boolean(), json) }),
  fc.record({ type: fc.constantFrom('thinking', 'image', 'weird'), thinking: word }),
  json,
);
const record = fc.record(
  {
    type: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'summary', 'file-history-snapshot', 'queue-operation', 'new-kind'), word),
    uuid: word,
    parentUuid: fc.oneof(word, fc.constant(null)),
    sessionId: word,
    timestamp: fc.oneof(fc.constant('2026-03-05T10:00:00.000Z'), word),
    cwd: word,
    isSidechain: fc.oneof(fc.boolean(), json),
    subtype: fc.constantFrom('compact_boundary', 'x'),
    message: fc.record(
      {
        role: fc.constantFrom('user', 'assistant', 'x'),
        id: word,
        content: fc.oneof(word, fc.array(block, { maxLength: 5 }), json),
        stop_reason: fc.oneof(fc.constantFrom('end_turn', 'tool_use', null), word),
        usage: fc.oneof(fc.record({ input_tokens: fc.integer(), output_tokens: fc.integer(), cache_read_input_tokens: fc.integer() }), json),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['type'] },
);
export const transcriptLines = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: record.map((r) => JSON.stringify(r)) },
    { weight: 1, arbitrary: record.map((r) => JSON.stringify(r).slice(0, 40)) },
    { weight: 1, arbitrary: noise.map((n) => n.replace(/\n/g, ' ')) },
  ),
  { maxLength: 25 },
);

/** A hook's stdin: Claude Code's payloads with odd values, other shapes, noise. */
export const hookInput = fc.tuple(
  fc.oneof(
    { weight: 3, arbitrary: fc.constant('Stop') },
    { weight: 2, arbitrary: fc.constantFrom('PreCompact', 'SessionEnd', 'SessionStart') },
    { weight: 1, arbitrary: word },
  ),
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc
        .record({
          session_id: fc.uuid(),
          transcript_path: fc.constant('/home/me/.claude/projects/-w/s.jsonl'),
          cwd: fc.constant('/w'),
          hook_event_name: fc.constant('Stop'),
          stop_hook_active: fc.boolean(),
        })
        .map((p) => JSON.stringify(p)),
    },
    {
      weight: 4,
      arbitrary: fc
        .record(
          {
            session_id: fc.oneof(fc.uuid(), word, json),
            transcript_path: fc.oneof(fc.constant('/home/me/.claude/projects/-w/s.jsonl'), word, json),
            cwd: fc.oneof(word, fc.constant(null), json),
            hook_event_name: fc.oneof(fc.constantFrom('Stop', 'PreCompact', 'SessionEnd'), word),
            trigger: fc.oneof(fc.constantFrom('manual', 'auto'), word, json),
            reason: fc.oneof(word, json),
            stop_hook_active: fc.oneof(fc.boolean(), json),
          },
          { requiredKeys: [] },
        )
        .map((p) => JSON.stringify(p)),
    },
    { weight: 1, arbitrary: json.map((j) => JSON.stringify(j)) },
    { weight: 1, arbitrary: noise },
  ),
);

/** A team key as a hostile peer might send it. */
const teamKey = fc.oneof(
  fc.constantFrom('ok.md', 'MEMORY.md', 'infra/dns.md', '../x.md', '%2e%2e/x.md', 'a#b.md', 'CON.md', '.git/x.md', 'x.md.', 'A.md', 'a.md'),
  fc.string({ maxLength: 40 }).map((s) => `${s}.md`),
  word,
);
const content = fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('\0', '\uD800', 'x'.repeat(70_000)), json);

/** A PUT body: the delta in its real shape with odd keys and contents, other shapes, noise. */
export const putBody = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(teamKey, content, { maxKeys: 8 }).map((entries) => JSON.stringify({ entries })) },
  { weight: 1, arbitrary: json.map((j) => JSON.stringify(j)) },
  { weight: 1, arbitrary: noise },
);

/** A server's answer to the client: the protocol's shapes with odd values, other statuses, noise. */
export interface ServerAnswer {
  call: 'me' | 'entries' | 'checksums' | 'put';
  status: number;
  etag: string | null;
  retryAfter: string | null;
  body: string;
}
const sha = fc.stringMatching(/^[0-9a-f]{64}$/);
const anyServerAnswer: fc.Arbitrary<ServerAnswer> = fc.record({
  call: fc.constantFrom('me', 'entries', 'checksums', 'put'),
  status: fc.constantFrom(200, 200, 200, 304, 400, 401, 404, 409, 412, 413, 428, 429, 500, 503),
  etag: fc.oneof(fc.constant('"e-1"'), word, fc.constant(null)),
  retryAfter: fc.oneof(fc.constant(null), word),
  body: fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .oneof(
          fc.record({ team: word, member: word, tokenId: word }, { requiredKeys: [] }),
          fc.record(
            {
              team: word,
              version: fc.oneof(fc.nat(), json),
              etag: word,
              full: fc.oneof(fc.boolean(), json),
              entries: fc.dictionary(teamKey, fc.record({ content, sha256: fc.oneof(sha, word), updatedAt: word, updatedBy: word }, { requiredKeys: [] }), {
                maxKeys: 5,
              }),
            },
            { requiredKeys: [] },
          ),
          fc.record(
            { team: word, version: fc.nat(), etag: word, checksums: fc.dictionary(teamKey, fc.oneof(sha, word), { maxKeys: 5 }) },
            { requiredKeys: [] },
          ),
          fc.record({ version: fc.nat(), etag: word, changed: fc.array(word), unchanged: fc.array(word) }, { requiredKeys: [] }),
          fc.record(
            { error: fc.oneof(fc.constantFrom('stale', 'invalid-key', 'rate-limited', 'unavailable'), word), message: word, etag: word, keys: json },
            { requiredKeys: [] },
          ),
        )
        .map((b) => JSON.stringify(b)),
    },
    { weight: 1, arbitrary: json.map((j) => JSON.stringify(j)) },
    { weight: 1, arbitrary: noise },
  ),
});
// One answer in ten is a well-formed "who am I": random answers are almost always refused, so
// without it ~7% of 150-case rounds never reached the accepting side.
export const serverAnswer: fc.Arbitrary<ServerAnswer> = fc.oneof(
  { weight: 9, arbitrary: anyServerAnswer },
  {
    weight: 1,
    arbitrary: fc.record({
      call: fc.constant('me' as const),
      status: fc.constant(200),
      etag: fc.constant(null),
      retryAfter: fc.constant(null),
      body: fc.tuple(word, word).map(([member, tokenId]) => JSON.stringify({ team: 'platform', member, tokenId })),
    }),
  },
);

/** A settings file: the keys Memdir reads with odd values, other JSON, noise. */
export const settingsText = fc.oneof(
  { weight: 2, arbitrary: fc.record({ autoMemoryEnabled: fc.boolean(), autoDreamEnabled: fc.boolean() }, { requiredKeys: [] }).map((s) => JSON.stringify(s)) },
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          autoMemoryEnabled: fc.oneof(fc.boolean(), json),
          autoMemoryDirectory: fc.oneof(word, fc.constantFrom('~/', '~/..', '/', '/a', '\\\\server\\share', '~/mem', '/tmp/x\0y'), json),
          autoDreamEnabled: fc.oneof(fc.boolean(), json),
          hooks: json,
        },
        { requiredKeys: [] },
      )
      .map((s) => JSON.stringify(s)),
  },
  { weight: 1, arbitrary: json.map((j) => JSON.stringify(j)) },
  { weight: 1, arbitrary: noise },
);

/** A personal space's entry (a sealed text, mostly a real one edited) or key record (a real one with a field changed), as a hostile server sends it. */
export type PersonalInput =
  | { kind: 'entry'; edit: [number, string, number] | null; noise: string; sameName: boolean; otherName: string }
  | { kind: 'record'; mutate: [string, unknown] | null; noise: string };
export const personalInput: fc.Arbitrary<PersonalInput> = fc.oneof(
  fc.record({
    kind: fc.constant('entry' as const),
    // An untouched entry half the time an edit is drawn: random edits of a sealed entry are almost
    // always refused, so without it a 150-case round reached the accepting side only ~92% of seeds.
    edit: fc.option(
      fc.oneof(
        fc.constant<[number, string, number]>([0, '', 0]),
        fc.tuple(fc.nat(), fc.oneof(fc.constant(''), fc.string({ maxLength: 4 }), fc.constantFrom('A', '-', '_', '=', '.', 'm1.')), fc.nat({ max: 8 })),
      ),
      { freq: 4 },
    ),
    noise: fc.oneof(
      noise,
      fc.string({ maxLength: 400 }).map((t) => `m1.${t}`),
      fc.base64String({ maxLength: 600 }).map((t) => `m1.${t.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`),
    ),
    sameName: fc.boolean(),
    otherName: fc.oneof(
      fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 }).map((h) => `${h}.md`),
      word,
    ),
  }),
  fc.record({
    kind: fc.constant('record' as const),
    mutate: fc.option(
      fc.tuple(
        fc.constantFrom('v', 'kdf', 'N', 'r', 'p', 'salt', 'check', 'extra'),
        fc.oneof(word, fc.integer(), fc.double(), fc.constant(null), fc.constant(2 ** 40), fc.constant(1 << 16)),
      ),
      { freq: 4 },
    ),
    noise: fc.oneof(noise, fc.json()),
  }),
);
