/**
 * Finding secrets in memory text before it leaves the machine.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export {
  type Finding,
  maskedForShowing,
  maskedName,
  maskedPath,
  maskSecretsIn,
  redactFinding,
  remasked,
  scanContent,
  scanDir,
  scanFile,
  type ScanReport,
  scanText,
} from './scanner.js';
export { fingerprintIn, fingerprintMatches, type SecretTrace, textHolds, traceOf } from './fingerprint.js';
export { type GuardedSave, refuseNewSecrets, SecretFoundError } from './save-guard.js';
