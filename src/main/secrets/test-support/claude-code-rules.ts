/**
 * Claude Code 2.1.332's own secret rules, as read from its binary
 * (test/fixtures/claude-code/secret-rules-2.1.332.json), each with a fake token its pattern
 * matches: the tokens are made here at run time so no key-shaped literal sits in the repository.
 */
import captured from '../../../../test/fixtures/claude-code/secret-rules-2.1.332.json' with { type: 'json' };

type Part = string | [string, number];

export interface ClientRule {
  id: string;
  source: string;
  flags: string;
  sample: Part[];
  moreSamples?: Part[][];
}

export const CLIENT_RULES = captured as { client: string; rules: ClientRule[] };

const UPPER = 'QWERTYUIOPASDFGHJKLZXCVBNM';
const LOWER = 'qwertyuiopasdfghjklzxcvbnm';
const DIGITS = '7302519864';
const ALPHABETS: Record<string, string> = {
  ALNUM: `${UPPER}${DIGITS}${LOWER}`,
  UPPERALNUM: `${UPPER}${DIGITS}`,
  UPPER32: `${UPPER}234567`,
  LETTERS: `${UPPER}${LOWER}`,
  DIGITS,
  HEX: '0123456789abcdef',
  B64: `${UPPER}${DIGITS}${LOWER}+/`,
  B64URL: `${UPPER}${DIGITS}${LOWER}-_`,
  AZURE: `${UPPER}${DIGITS}${LOWER}_~.-`,
};

function body(alphabet: string, n: number, seed: number): string {
  return Array.from({ length: n }, (_, i) => alphabet[(i * 7 + seed * 13 + ((i * i) % 11)) % alphabet.length]).join('');
}

/** Every client rule with a fake token for it (`name`: the rule's id, numbered when it has several). */
export const CLIENT_RULE_SAMPLES: { rule: ClientRule; name: string; token: string }[] = CLIENT_RULES.rules.flatMap((rule, seed) =>
  [rule.sample, ...(rule.moreSamples ?? [])].map((sample, n) => ({
    rule,
    name: n === 0 ? rule.id : `${rule.id}-${n + 1}`,
    token: sample.map((part) => (typeof part === 'string' ? part : body(ALPHABETS[part[0]]!, part[1], seed + n))).join(''),
  })),
);

/** A memory file as Claude Code writes one, holding `token`. */
export function memoryHolding(id: string, token: string): string {
  return `---\nname: ${id}\ndescription: staging credentials\nmetadata:\n  type: reference\n---\n\nThe staging one is ${token}\nrotate it monthly.\n`;
}
