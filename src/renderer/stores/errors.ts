/** Human text for any failure a store meets. */
import { RpcError } from '../../shared/contract/rpc-error.js';
import type { SecretOnSave } from '../../shared/secret-types.js';

export function messageOf(error: unknown): string {
  // An invalid input's message already says each problem in a sentence (the issues, joined).
  if (error instanceof RpcError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** A save refused because it would hold a secret (secrets/save-guard.ts): its sentence and each secret, masked, to ask about. */
export interface SecretRefusal {
  message: string;
  secrets: SecretOnSave[];
}

/** The secret refusal `error` is, or null: every save that can be refused for a secret asks with it before saving anyway. */
export function secretRefusalOf(error: unknown): SecretRefusal | null {
  return error instanceof RpcError && error.secrets?.length ? { message: error.message, secrets: error.secrets } : null;
}

/** The fingerprints to save with once the person says "anyway": those allowed before, and the refusal's. */
export function allowedAfter(refusal: SecretRefusal, before: readonly string[] = []): string[] {
  return [...before, ...refusal.secrets.map((s) => s.fingerprint)];
}
