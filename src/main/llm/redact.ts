/**
 * Keep secrets out of logs and error messages: known values are replaced wherever they occur,
 * and anything shaped like an Anthropic key or a bearer token is masked even when unknown.
 */

const KEY_SHAPES = [/sk-ant-[A-Za-z0-9_-]{6,}/g, /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, /(x-api-key["']?\s*[:=]\s*["']?)[^\s"',}]+/gi];

/** Replace every known secret and every key-shaped string in `text`. */
export function redact(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would mask ordinary words; keys are long.
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  for (const shape of KEY_SHAPES) {
    out = out.replace(shape, (match, prefix?: string) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}[redacted]` : match.startsWith('sk-ant-') ? 'sk-ant-[redacted]' : 'Bearer [redacted]',
    );
  }
  return out;
}
