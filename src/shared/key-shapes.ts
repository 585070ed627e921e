/**
 * What an Anthropic key and a bearer token look like — the one place both readers of that take it
 * from: the secrets scanner (secrets/rules.ts: a finding must be sure, so a whole key, random
 * enough) and the model providers' error redaction (llm/redact.ts: a message may quote a key cut
 * short, so anything that starts like one is masked). Each pair is the same shape, told apart only
 * by how sure it must be. Global patterns: use them with `matchAll` or `replace`, which start over.
 */

/** What every Anthropic key starts with: API (`api03`), admin (`admin01`), OAuth (`oat01`, `ort01`) and kinds to come. */
export const ANTHROPIC_KEY_PREFIX = /sk-ant-/;
/** A whole Anthropic key, alone: the prefix, its kind and version (`api03-`), then 32 or more base64url characters. */
export const ANTHROPIC_KEY = /(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{32,300}(?![A-Za-z0-9_-])/g;
/** Its kind and version, to judge the randomness of what follows. */
export const ANTHROPIC_KEY_KIND = /^sk-ant-[a-z]+\d+-/;
/** Anything that starts like an Anthropic key (one cut short in a message too): what redaction masks. */
export const ANTHROPIC_KEY_START = /sk-ant-[A-Za-z0-9_-]{6,}/g;

/** A bearer token after its scheme (RFC 6750's b64token), group 1: 20 or more characters, alone. */
export const BEARER_TOKEN = /\bBearer[ \t]+([A-Za-z0-9._~+/-]{20,2000}=*)(?![A-Za-z0-9._~+/=-])/g;
/** Anything after the Bearer scheme that could be a token (8 or more of its characters, any case of the scheme): what redaction masks. */
export const BEARER_TOKEN_START = /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi;
/** The value of an `x-api-key` header or field, group 1 being the name and separator: what redaction masks. */
export const API_KEY_HEADER_VALUE = /(x-api-key["']?\s*[:=]\s*["']?)[^\s"',}]+/gi;
