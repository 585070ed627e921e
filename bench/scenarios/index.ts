/** Every bench scenario, by name. */
import type { Scenario } from '../lib.js';
import { dreamGatesScenario } from './dream-gates.js';
import { scanScenario } from './scan.js';

export const SCENARIOS: Scenario[] = [scanScenario, dreamGatesScenario];
