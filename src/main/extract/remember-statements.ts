/**
 * Offline extraction (issue 5, part 6): without a model nothing is written automatically, but a
 * user who says "remember…", "always…", "don't…", "记住…", "以后…", "别…", "不要…" clearly
 * wants something kept. Those sentences are found in the user's own prompts (never in the
 * assistant's text, never inside code blocks) and offered as suggestions to turn into a
 * memory in one click.
 *
 * The patterns are anchored at the start of a sentence for words that also occur in passing
 * ("I don't know why…", "改完以后…" = "after the change…"), and match anywhere only for the
 * unambiguous ones ("remember", "记住"). Questions are left out: "don't you think?" is not an
 * instruction.
 */
import type { MemoryType } from '../../shared/memory-types.js';
import type { ExtractOperation } from '../../shared/contract/extract.js';
import { suggestFileName } from '../memdir/index.js';

/** A sentence that asks for something to be kept. */
export interface RememberStatement {
  /** The sentence, trimmed (at most {@link MAX_STATEMENT_CHARS}). */
  text: string;
  /** Which cue matched. */
  cue: 'remember' | 'always' | 'never' | 'dont' | 'from-now-on';
  /** `user` for statements about the user themself, else `feedback`. */
  type: MemoryType;
}

/** Longer sentences are cut: a suggestion is a line, not a paste. */
export const MAX_STATEMENT_CHARS = 300;

const LEAD = String.raw`^(?:(?:and|also|oh|ok(?:ay)?|so|but|btw|note|please|pls|hey|and please|also please)[,:]?\s+)*`;
const EN_ANYWHERE = /\bremember\b|\bkeep in mind\b|\bnote (?:that|for (?:the )?future)\b/i;
const EN_START: [RememberStatement['cue'], RegExp][] = [
  ['always', new RegExp(`${LEAD}always\\b`, 'i')],
  ['never', new RegExp(`${LEAD}never\\b`, 'i')],
  ['dont', new RegExp(`${LEAD}(?:don['’]?t|do not|stop)\\b`, 'i')],
  ['from-now-on', new RegExp(`${LEAD}(?:from now on|going forward|in (?:the )?future|next time)\\b`, 'i')],
];
const ZH_LEAD = '^(?:(?:请|你|我们|也|还有|另外|对了|注意)[，,:：]?)*';
const ZH_ANYWHERE = /记住|记得|牢记|請記住|记一下/;
const ZH_START: [RememberStatement['cue'], RegExp][] = [
  ['from-now-on', new RegExp(`${ZH_LEAD}(?:以后|今后|往后|从现在开始|從現在開始|下次|將來|将来)`)],
  ['dont', new RegExp(`${ZH_LEAD}(?:别|不要|千万别|千萬別|不許|不许|禁止)`)],
  ['never', new RegExp(`${ZH_LEAD}(?:永远不要|永遠不要|绝不|絕不|从不|從不)`)],
  ['always', new RegExp(`${ZH_LEAD}(?:总是|總是|始终|始終|一律|一定要|务必|務必)`)],
];
const ABOUT_ME = /\b(?:i am|i'm|my (?:role|name|job|team)|i work (?:on|as|at))\b|我是|我的(?:角色|职位|職位|名字)|我在.{0,6}(?:工作|负责|負責)/i;

/** Prompt text without fenced code, inline code, quoted blocks and pasted logs. */
function proseOf(text: string): string {
  return text
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .replace(/`[^`\n]*`/g, ' ')
    .split('\n')
    .filter((line) => !/^\s*>/.test(line))
    .join('\n');
}

/** Sentences of a prose text, in English and Chinese punctuation. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？；;])\s*|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function cueOf(sentence: string): RememberStatement['cue'] | null {
  if (EN_ANYWHERE.test(sentence) || ZH_ANYWHERE.test(sentence)) return 'remember';
  for (const [cue, pattern] of [...EN_START, ...ZH_START]) if (pattern.test(sentence)) return cue;
  return null;
}

/** The "remember this" statements in a user's prompt, in order, without repeats. */
export function findRememberStatements(prompt: string): RememberStatement[] {
  const found: RememberStatement[] = [];
  const seen = new Set<string>();
  for (const sentence of sentences(proseOf(prompt))) {
    if (/[?？]$/.test(sentence)) continue;
    // "Do you remember…", "记得吗" ask something; they do not ask for something to be kept.
    if (/^(?:do|did|can|could|would|will) (?:you|we)\b/i.test(sentence) || /吗[。.]?$|嗎[。.]?$/.test(sentence)) continue;
    const cue = cueOf(sentence);
    if (!cue) continue;
    const text = sentence.length > MAX_STATEMENT_CHARS ? `${sentence.slice(0, MAX_STATEMENT_CHARS - 1)}…` : sentence;
    const key = text.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ text, cue, type: ABOUT_ME.test(sentence) ? 'user' : 'feedback' });
  }
  return found;
}

/** A short name for a statement: its first words (or characters, for Chinese). */
function nameOf(text: string): string {
  const clean = text.replace(/^(?:please|pls|请|請)[,，\s]*/i, '').replace(/[.。!！;；]+$/, '');
  if (/[\u3400-\u9fff]/.test(clean) && !/\s/.test(clean.slice(0, 20))) return clean.length > 24 ? `${clean.slice(0, 24)}…` : clean;
  const words = clean.split(/\s+/);
  const name = words.slice(0, 8).join(' ');
  return words.length > 8 ? `${name}…` : name;
}

/** The memory a statement would become: private, its own words as description and body. */
export function suggestionOperation(
  statement: RememberStatement,
  context: { sessionId: string | null; date: string; existingFiles: ReadonlySet<string> },
): ExtractOperation {
  const name = nameOf(statement.text);
  let file = suggestFileName(statement.type, name);
  for (let n = 2; context.existingFiles.has(file); n++) file = file.replace(/(?:_\d+)?\.md$/, `_${n}.md`);
  const description = statement.text.replace(/\s+/g, ' ');
  return {
    action: 'create',
    file,
    scope: 'private',
    type: statement.type,
    name,
    description: description.length > 150 ? `${description.slice(0, 149)}…` : description,
    body: `${statement.text}\n\n(Said by the user on ${context.date}${context.sessionId ? ` in session ${context.sessionId}` : ''}.)\n`,
    hook: null,
    reason: 'The user asked for this to be remembered.',
  };
}
