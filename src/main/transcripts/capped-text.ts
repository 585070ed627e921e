/**
 * Text kept to a cap (issue 5: one enormous turn cannot take the process's memory with it): a cut
 * that says how much was left out, a deep cut of long strings, and an appender that stops at its cap.
 */

/** `text` cut to `max` characters, with a note of how many more there were. */
export function cut(text: string, max: number): { text: string; truncated: boolean } {
  return text.length <= max ? { text, truncated: false } : { text: `${text.slice(0, max)}… [${text.length - max} more characters]`, truncated: true };
}

/** A copy of `value` with long strings cut, or `value` itself when nothing is long. */
export function capStrings(value: unknown, max: number, depth = 0): unknown {
  if (typeof value === 'string') return value.length > max ? cut(value, max).text : value;
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item, i) => {
      const capped = capStrings(item, max, depth + 1);
      if (capped !== item) (copy ??= [...value])[i] = capped;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(value)) {
    const capped = capStrings(item, max, depth + 1);
    if (capped !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = capped;
  }
  return copy ?? value;
}

/** Appends texts up to a cap, remembering whether anything was dropped. */
export class CappedText {
  private parts: string[] = [];
  private length = 0;
  truncated = false;

  constructor(
    private readonly max: number,
    private readonly separator: string,
  ) {}

  add(text: string): void {
    if (text === '') return;
    const room = this.max - this.length;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const piece = text.length > room ? cut(text, room).text : text;
    if (text.length > room) this.truncated = true;
    this.parts.push(piece);
    this.length += piece.length + this.separator.length;
  }

  get text(): string {
    return this.parts.join(this.separator);
  }
}
