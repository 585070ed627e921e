/**
 * Keep secrets out of logs and error messages: known values are replaced wherever they occur,
 * and anything shaped like an Anthropic key or a bearer token is masked even when unknown — the
 * shapes the secrets scanner knows them by (shared/key-shapes.ts), taken loosely: a message may
 * quote a key cut short.
 */
import { ANTHROPIC_KEY_START, API_KEY_HEADER_VALUE, BEARER_TOKEN_START } from '../../shared/key-shapes.js';

/** Replace every known secret and every key-shaped string in `text`. */
export function redact(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would mask ordinary words; keys are long.
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out
    .replace(ANTHROPIC_KEY_START, 'sk-ant-[redacted]')
    .replace(BEARER_TOKEN_START, 'Bearer [redacted]')
    .replace(API_KEY_HEADER_VALUE, (_match, name: string) => `${name}[redacted]`);
}
