/**
 * Writes transcript lines the way Claude Code does (SPEC §8): its key order (`type` before
 * `message`, `uuid` and `timestamp` after it), one line per content block for a multi-block
 * response with the `message.id` and usage repeated, `parentUuid` chaining each line to the one
 * before. Used by the tests and the `transcripts` bench.
 */

export interface BuilderOptions {
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  version?: string;
  /** Sub-agent transcripts: every line `isSidechain: true` with this `agentId`. */
  agentId?: string;
  /** ISO time of the first line; each line is one second after the previous. */
  start?: string;
  /** Prefix of generated uuids (`<prefix>-<n>`). */
  uuidPrefix?: string;
}

export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } };

export interface UsageInput {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface AssistantOptions {
  /** Default: `msg_<n>`. */
  messageId?: string;
  stopReason?: string | null;
  usage?: UsageInput;
  /** One line per block (Claude Code's way, default) or all blocks on one line. */
  split?: boolean;
  model?: string;
  cwd?: string;
}

export class TranscriptBuilder {
  private readonly out: string[] = [];
  private counter = 0;
  private messages = 0;
  private clock: number;
  private parent: string | null = null;
  /** The uuid of the last line written. */
  lastUuid: string | null = null;
  cwd: string;

  constructor(private readonly options: BuilderOptions = {}) {
    this.clock = Date.parse(options.start ?? '2026-03-01T10:00:00.000Z');
    this.cwd = options.cwd ?? '/work/app';
  }

  private nextUuid(): string {
    return `${this.options.uuidPrefix ?? 'u'}-${++this.counter}`;
  }

  private nextTime(): string {
    const time = new Date(this.clock).toISOString();
    this.clock += 1000;
    return time;
  }

  /** Move the clock (out-of-order timestamps). */
  setTime(iso: string): this {
    this.clock = Date.parse(iso);
    return this;
  }

  private envelope(type: string, message: unknown, extra: Record<string, unknown> = {}, cwd = this.cwd): Record<string, unknown> {
    const uuid = this.nextUuid();
    const line: Record<string, unknown> = {
      parentUuid: this.parent,
      isSidechain: this.options.agentId !== undefined,
      userType: 'external',
      cwd,
      sessionId: this.options.sessionId ?? 'session-1',
      version: this.options.version ?? '2.0.14',
      gitBranch: this.options.gitBranch ?? 'main',
      ...(this.options.agentId !== undefined ? { agentId: this.options.agentId } : {}),
      type,
      message,
      ...extra,
      uuid,
      timestamp: this.nextTime(),
    };
    this.parent = uuid;
    this.lastUuid = uuid;
    return line;
  }

  /** A prompt typed by the user: a string, or blocks (text and images). */
  prompt(content: string | Block[], extra: Record<string, unknown> = {}): this {
    return this.push(this.envelope('user', { role: 'user', content }, extra));
  }

  /** A user line injected by Claude Code (`isMeta`), or any other user line. */
  userLine(content: string | Block[], extra: Record<string, unknown> = {}): this {
    return this.prompt(content, extra);
  }

  /** The result of a tool call, with `toolUseResult` repeating it as Claude Code does. */
  toolResult(toolUseId: string, content: string, isError = false, toolUseResult: unknown = content): this {
    return this.push(
      this.envelope(
        'user',
        { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content, ...(isError ? { is_error: true } : {}) }] },
        { toolUseResult },
      ),
    );
  }

  /** One assistant response; by default one line per block with the same message id. */
  assistant(blocks: Block[] | string, options: AssistantOptions = {}): this {
    const list: Block[] = typeof blocks === 'string' ? [{ type: 'text', text: blocks }] : blocks;
    const id = options.messageId ?? `msg_${++this.messages}`;
    const usage = {
      input_tokens: 4,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 1000,
      output_tokens: 20,
      service_tier: 'standard',
      ...options.usage,
    };
    const groups = options.split === false ? [list] : list.map((block) => [block]);
    groups.forEach((group, i) => {
      const last = i === groups.length - 1;
      const message = {
        id,
        type: 'message',
        role: 'assistant',
        model: options.model ?? 'claude-sonnet-4-5-20250929',
        content: group,
        stop_reason: last ? (options.stopReason === undefined ? null : options.stopReason) : null,
        stop_sequence: null,
        usage,
      };
      this.push(this.envelope('assistant', message, { requestId: `req_${id}` }, options.cwd ?? this.cwd));
    });
    return this;
  }

  /** A `system` line; `compact_boundary` resets `parentUuid` as Claude Code does. */
  system(subtype: string, extra: Record<string, unknown> = {}): this {
    const uuid = this.nextUuid();
    const line = {
      parentUuid: subtype === 'compact_boundary' ? null : this.parent,
      logicalParentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.options.sessionId ?? 'session-1',
      version: this.options.version ?? '2.0.14',
      type: 'system',
      subtype,
      content: subtype === 'compact_boundary' ? 'Conversation compacted' : subtype,
      isMeta: false,
      timestamp: this.nextTime(),
      uuid,
      level: 'info',
      ...extra,
    };
    this.parent = uuid;
    this.lastUuid = uuid;
    return this.push(line);
  }

  /** Any object as a line. */
  record(value: unknown): this {
    return this.push(value);
  }

  /** A raw line, written as given (garbage, half lines). */
  raw(text: string): this {
    this.out.push(text);
    return this;
  }

  private push(value: unknown): this {
    this.out.push(JSON.stringify(value));
    return this;
  }

  /** The lines written so far, then forget them (to append a next part). */
  take(): string {
    const text = this.out.map((line) => `${line}\n`).join('');
    this.out.length = 0;
    return text;
  }
}
