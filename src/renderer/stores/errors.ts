/** Human text for any failure a store meets. */
import { RpcError } from '../../shared/contract/rpc-error.js';
import type { SecretOnSave } from '../../shared/secret-types.js';
import { useToasts } from './toasts.js';

export function messageOf(error: unknown): string {
  // An invalid input's message already says each problem in a sentence (the issues, joined).
  if (error instanceof RpcError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * messageOf as a sentence, ending in a full stop, for a notice that says more after it ("… It is
 * still in the editor."): the host's sentences about a file end without one ("Cannot write a.md:
 * the disk … is full — free some space and try again").
 */
export function sentenceOf(error: unknown): string {
  const message = messageOf(error).trimEnd();
  return /[.!?…]$/.test(message) ? message : `${message}.`;
}

/** The input that overrules a refusal (`allowHttp`), for the view to offer that choice; null when none does. */
export function overruledByOf(error: unknown): string | null {
  return error instanceof RpcError ? (error.overruledBy ?? null) : null;
}

/** A save refused because it would hold a secret (secrets/save-guard.ts): its sentence and each secret, masked, to ask about. */
export interface SecretRefusal {
  message: string;
  secrets: SecretOnSave[];
}

/** A secret refusal to ask about: its sentence, each secret masked, and the fingerprints that save anyway (those allowed before, and its own). */
export interface SecretAsk extends SecretRefusal {
  allowSecrets: string[];
}

/**
 * The question a secret refusal asks, or null when `error` is not one: every save the guard can
 * refuse (a save, a rename, a merge, MEMORY.md, a move) asks with it before saving anyway on
 * purpose with `allowSecrets`; the fingerprints allowed before stay allowed.
 */
export function secretAskOf(error: unknown, allowedBefore: readonly string[] = []): SecretAsk | null {
  if (!(error instanceof RpcError) || !error.secrets?.length) return null;
  return askOf({ message: error.message, secrets: error.secrets }, allowedBefore);
}

/** The question of a refusal not thrown (a bulk change lists each memory's): the same as secretAskOf's. */
export function askOf(refusal: SecretRefusal, allowedBefore: readonly string[] = []): SecretAsk {
  return { ...refusal, allowSecrets: [...allowedBefore, ...refusal.secrets.map((s) => s.fingerprint)] };
}

/** The button that saves anyway: "Save anyway, with this secret", "Move anyway, with these secrets". */
export function anywayLabel(verb: string, secrets: readonly SecretOnSave[]): string {
  return `${verb} anyway, with ${secrets.length === 1 ? 'this secret' : 'these secrets'}`;
}

/**
 * Ask in a notice, where no form stays open to ask in (a move): the refusal, masked, with
 * "<verb> anyway", which runs `anyway` with the fingerprints to allow; its failure is said too.
 * `then` says what else doing it anyway decides (", and team sync shares it").
 */
export function askInNotice(ask: SecretAsk, verb: string, anyway: (allowSecrets: string[]) => Promise<unknown>, then = ''): void {
  useToasts.getState().show('error', `${ask.message} Remove it (and revoke it if it is real), or ${verb.toLowerCase()} anyway on purpose${then}.`, {
    label: anywayLabel(verb, ask.secrets),
    run: () => void anyway(ask.allowSecrets).catch((e: unknown) => useToasts.getState().show('error', messageOf(e))),
  });
}
