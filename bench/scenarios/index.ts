/**
 * Every bench scenario, by name. To add one: write `scenarios/<name>.ts` exporting a
 * {@link Scenario} whose ratios carry their targets, and add it here — one line.
 */
import type { Scenario } from '../lib.js';
import { bulkScenario } from './bulk.js';
import { dreamGatesScenario } from './dream-gates.js';
import { fuzzScenario } from './fuzz.js';
import { killScenario } from './kill.js';
import { hookScenario } from './hook.js';
import { identityScenario } from './identity.js';
import { recallScenario } from './recall.js';
import { rendererScenario } from './renderer.js';
import { scaleScenario } from './scale.js';
import { scanScenario } from './scan.js';
import { secretsScenario } from './secrets.js';
import { startScenario } from './start.js';
import { syncScenario } from './sync.js';
import { syncFaultsScenario } from './sync-faults.js';
import { teamLoadScenario } from './team-load.js';
import { transcriptsScenario } from './transcripts.js';

export const SCENARIOS: Scenario[] = [
  scanScenario,
  scaleScenario,
  startScenario,
  rendererScenario,
  recallScenario,
  transcriptsScenario,
  dreamGatesScenario,
  secretsScenario,
  syncScenario,
  syncFaultsScenario,
  teamLoadScenario,
  hookScenario,
  fuzzScenario,
  killScenario,
  identityScenario,
  bulkScenario,
];
