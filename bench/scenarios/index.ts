/** Every bench scenario, by name. */
import type { Scenario } from '../lib.js';
import { dreamGatesScenario } from './dream-gates.js';
import { fuzzScenario } from './fuzz.js';
import { killScenario } from './kill.js';
import { hookScenario } from './hook.js';
import { identityScenario } from './identity.js';
import { recallScenario } from './recall.js';
import { rendererScenario } from './renderer.js';
import { scanScenario } from './scan.js';
import { secretsScenario } from './secrets.js';
import { syncScenario } from './sync.js';
import { syncFaultsScenario } from './sync-faults.js';
import { teamLoadScenario } from './team-load.js';
import { transcriptsScenario } from './transcripts.js';

export const SCENARIOS: Scenario[] = [scanScenario, rendererScenario, recallScenario, transcriptsScenario, dreamGatesScenario, secretsScenario, syncScenario, syncFaultsScenario, teamLoadScenario, hookScenario, fuzzScenario, killScenario, identityScenario];
