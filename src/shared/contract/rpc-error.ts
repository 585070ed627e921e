/**
 * The error every call can fail with, as the renderer receives it. Kept apart from the schemas
 * (define.ts) and free of zod, so the renderer's first screen does not load the schema library
 * only to name its errors (issue 16); define.ts checks its schema against these types.
 */
import type { SecretOnSave } from '../secret-types.js';

/** Error codes a call can fail with; each carries a message a person can act on. */
export const RPC_ERROR_CODES = [
  'invalid-input',
  'not-found',
  'exists',
  'conflict',
  'invalid-name',
  'scope-refused',
  'unsafe-path',
  'busy',
  'unavailable',
  'unauthorized',
  'internal',
] as const;
export type RpcErrorCode = (typeof RPC_ERROR_CODES)[number];

/** An RpcError on the wire (a type, not an interface: callers read it as a plain record). */
export type RpcErrorShape = {
  code: RpcErrorCode;
  message: string;
  /** For `conflict`: what is on disk now, so both versions can be shown. */
  current?: string | undefined;
  /** For `invalid-input`: which fields, in words. */
  issues?: string[] | undefined;
  /** What the person can do about it, one sentence (a MemdirError's hint). */
  hint?: string | undefined;
  /**
   * A refusal the caller may overrule: the input that does it, by its contract name
   * (`allowHttp`). The CLI names the flag; the app offers the same choice (a button).
   */
  overruledBy?: string | undefined;
  /** For a save refused for a secret: each secret it would add, masked, with the fingerprint that saves it anyway. */
  secrets?: SecretOnSave[] | undefined;
};

/** The error value every transport delivers to the renderer. */
export class RpcError extends Error {
  readonly code: RpcErrorCode;
  readonly current?: string;
  readonly issues?: string[];
  readonly hint?: string;
  readonly overruledBy?: string;
  readonly secrets?: SecretOnSave[];
  constructor(shape: RpcErrorShape) {
    super(shape.message);
    this.name = 'RpcError';
    this.code = shape.code;
    if (shape.current !== undefined) this.current = shape.current;
    if (shape.issues !== undefined) this.issues = shape.issues;
    if (shape.hint !== undefined) this.hint = shape.hint;
    if (shape.overruledBy !== undefined) this.overruledBy = shape.overruledBy;
    if (shape.secrets !== undefined) this.secrets = shape.secrets;
  }
  toJSON(): RpcErrorShape {
    return {
      code: this.code,
      message: this.message,
      ...(this.current !== undefined ? { current: this.current } : {}),
      ...(this.issues ? { issues: this.issues } : {}),
      ...(this.hint !== undefined ? { hint: this.hint } : {}),
      ...(this.overruledBy !== undefined ? { overruledBy: this.overruledBy } : {}),
      ...(this.secrets !== undefined ? { secrets: this.secrets } : {}),
    };
  }
}
