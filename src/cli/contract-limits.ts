/**
 * The app's limits, said the same way on the command line: a CLI option that feeds a service
 * the app reaches through the contract is checked against that call's own schema, and refused
 * with the same sentences ("The query is 25,000 characters; a recall query can be at most 20,000
 * characters.") — one rule for each limit, whichever door a person comes through.
 */
import { CONTRACT, type CallName } from '../shared/contract/index.js';
import { inputSentences } from '../shared/contract/input-sentences.js';
import { CliFailure } from './command.js';

/** Throw a CliFailure when one of `fields` breaks a limit of `call`'s input (other fields are ignored). */
export function checkContractLimits(call: CallName, fields: Record<string, unknown>): void {
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const sentences = inputSentences(call, CONTRACT[call].input, defined, Object.keys(defined));
  if (sentences.length > 0) throw new CliFailure(sentences.join(' '));
}
