/**
 * Tokeniser of the local ranker: users write Chinese, Japanese and English, often mixed
 * (SPEC §3). Text is NFKC-normalised (full-width letters and digits become ASCII) and
 * case-folded; CJK runs are split into words by `Intl.Segmenter` (ICU's dictionary; Node 20
 * segments Chinese into words), other runs into letters-and-digits words, which are lightly
 * stemmed (plurals and -ing/-ed) so "deploys", "deploying" and "deployed" meet "deploy".
 *
 * CJK n-grams (options): the segmenter is not perfect (数据库 → 数据|库, 函数式编程 →
 * 函数|式|编|程) and paraphrases rarely segment alike (推到 / 推送, 簡體 / 繁體), so a CJK run can
 * also yield its overlapping character pairs and its lone Han characters. The ranker uses both
 * (lone characters weigh a fifth), measured in bench/scenarios/recall.ts. English words also
 * lose -ly and -ness, so "locally" meets "local".
 */

/** Switches of the tokeniser (the ranker measures each on the labelled set). */
export interface TokenizeOptions {
  /** English plural and -ing/-ed folding. */
  stem?: boolean;
  /** Also emit overlapping character pairs of CJK runs. */
  cjkBigrams?: boolean;
  /** Also emit each Han character of a CJK run that the segmenter did not make a word of its own. */
  cjkUnigrams?: boolean;
  /** Drop function words ("the", "how", "的", "吗"). */
  stopwords?: boolean;
}

/** What the ranker ships with (bench `recall` has the measurements). */
export const DEFAULT_TOKENIZE: Required<TokenizeOptions> = { stem: true, cjkBigrams: false, cjkUnigrams: false, stopwords: true };

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

// Han, kana, the prolonged sound mark and CJK punctuation-free runs.
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+/u;
const HAN = /\p{Script=Han}/u;
const RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+|[\p{L}\p{N}]+/gu;

/** Function words that match everything and mean nothing for recall. */
export const STOPWORDS = new Set([
  // English
  'a',
  'an',
  'the',
  'and',
  'or',
  'but',
  'of',
  'to',
  'in',
  'on',
  'at',
  'for',
  'with',
  'by',
  'from',
  'as',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'it',
  'its',
  'this',
  'that',
  'these',
  'those',
  'do',
  'does',
  'did',
  'done',
  'have',
  'has',
  'had',
  'i',
  'me',
  'my',
  'we',
  'our',
  'us',
  'you',
  'your',
  'he',
  'she',
  'they',
  'them',
  'their',
  'what',
  'which',
  'who',
  'whom',
  'how',
  'when',
  'where',
  'why',
  'should',
  'would',
  'could',
  'can',
  'will',
  'shall',
  'may',
  'might',
  'must',
  'about',
  'into',
  'any',
  'some',
  'there',
  'here',
  'again',
  'so',
  'if',
  'then',
  'than',
  'not',
  'no',
  'yes',
  'all',
  'also',
  'just',
  'only',
  'anything',
  'something',
  'thing',
  'things',
  'way',
  'know',
  'remind',
  'tell',
  'please',
  'get',
  'got',
  'use',
  'using',
  'used',
  's',
  't',
  'don',
  'doesn',
  // Chinese
  '的',
  '了',
  '是',
  '在',
  '和',
  '与',
  '或',
  '吗',
  '呢',
  '吧',
  '啊',
  '么',
  '什么',
  '怎么',
  '怎样',
  '如何',
  '哪',
  '哪里',
  '哪儿',
  '哪个',
  '为什么',
  '我',
  '我们',
  '你',
  '你们',
  '他',
  '她',
  '它',
  '他们',
  '这',
  '那',
  '这个',
  '那个',
  '一个',
  '有',
  '没有',
  '要',
  '会',
  '能',
  '可以',
  '应该',
  '还是',
  '就',
  '都',
  '也',
  '还',
  '又',
  '把',
  '被',
  '给',
  '对',
  '从',
  '到',
  '上',
  '下',
  '里',
  '中',
  '时候',
  '之前',
  '之后',
  '以及',
  '关于',
  '一下',
  '记得',
  '告诉',
  '请',
  '用',
  '吗？',
  // Japanese particles
  'の',
  'に',
  'は',
  'を',
  'が',
  'で',
  'と',
  'も',
  'へ',
  'や',
  'か',
  'です',
  'ます',
  'する',
  'した',
]);

const VOWEL = /[aeiouy]/;

/** Light English stemming: plurals and the commonest verb endings; short words untouched. */
export function stemEnglish(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith("'s") || w.endsWith('’s')) w = w.slice(0, -2);
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(ss|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is|os)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing') && VOWEL.test(w.slice(0, -3))) {
    w = w.slice(0, -3);
    if (/([bdgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  } else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed') && VOWEL.test(w.slice(0, -2))) {
    w = w.endsWith('ied') ? `${w.slice(0, -3)}y` : w.slice(0, -2);
    if (/([bdgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  }
  // Adverbs and abstract nouns meet their adjective: "locally"/"local", "slowness"/"slow".
  if (w.length > 5 && w.endsWith('ly') && !w.endsWith('ply') && VOWEL.test(w.slice(0, -2))) w = w.endsWith('ily') ? `${w.slice(0, -3)}y` : w.slice(0, -2);
  else if (w.length > 6 && w.endsWith('ness')) w = w.endsWith('iness') ? `${w.slice(0, -5)}y` : w.slice(0, -4);
  // A final e is dropped everywhere, so "cache"/"caching" and "release"/"released" meet.
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Whether a token is CJK (so it is not stemmed and may get bigrams). */
export function isCjk(token: string): boolean {
  return CJK_RUN.test(token);
}

/** A term and where it was written: `start`/`end` index the original text (UTF-16), so it can be highlighted in the user's own words. */
export interface TermSpan {
  term: string;
  start: number;
  end: number;
}

/** The one tokenising loop over normalised text; `emit` gets each term with its offsets in that text. */
function scanTerms(normalised: string, options: TokenizeOptions, emit: (term: string, start: number, end: number) => void): void {
  const stem = options.stem ?? true;
  const bigrams = options.cjkBigrams ?? false;
  const unigrams = options.cjkUnigrams ?? false;
  const stop = options.stopwords ?? true;
  for (const match of normalised.matchAll(RUN)) {
    const run = match[0];
    const at = match.index;
    if (isCjk(run)) {
      const words = new Set<string>();
      for (const part of segmenter.segment(run)) {
        if (!part.isWordLike) continue;
        if (stop && STOPWORDS.has(part.segment)) continue;
        emit(part.segment, at + part.index, at + part.index + part.segment.length);
        words.add(part.segment);
      }
      if (bigrams && run.length > 2) {
        // A pair the segmenter already produced as a word is not counted twice.
        for (let i = 0; i + 1 < run.length; i++) {
          const pair = run.slice(i, i + 2);
          if (!words.has(pair) && !(stop && STOPWORDS.has(pair))) emit(pair, at + i, at + i + 2);
        }
      }
      if (unigrams && run.length > 1) {
        // 推 meets 推送 and 推到; kana alone says nothing, so Han characters only.
        for (let i = 0; i < run.length; i++) {
          const ch = run[i]!;
          if (HAN.test(ch) && !words.has(ch) && !(stop && STOPWORDS.has(ch))) emit(ch, at + i, at + i + 1);
        }
      }
      continue;
    }
    if (stop && STOPWORDS.has(run)) continue;
    emit(stem ? stemEnglish(run) : run, at, at + run.length);
  }
}

/** Split text into index/query terms. Deterministic; never throws. */
export function tokenize(text: string, options: TokenizeOptions = DEFAULT_TOKENIZE): string[] {
  const out: string[] = [];
  scanTerms(text.normalize('NFKC').toLowerCase(), options, (term) => out.push(term));
  return out;
}

/**
 * The terms of `text` with where each was written in it (see {@link TermSpan}): the same terms as
 * {@link tokenize}. Normalising can change a text's length (a ligature, a composed accent); then
 * each code point is normalised on its own to keep the offsets, and a term spanning a composed
 * character may differ — it is just not highlighted.
 */
export function tokenSpans(text: string, options: TokenizeOptions = DEFAULT_TOKENIZE): TermSpan[] {
  const whole = text.normalize('NFKC').toLowerCase();
  let normalised = whole;
  let origin: number[] | null = null;
  if (whole.length !== text.length) {
    const parts: string[] = [];
    origin = [];
    let i = 0;
    for (const cp of text) {
      const n = cp.normalize('NFKC').toLowerCase();
      parts.push(n);
      for (let k = 0; k < n.length; k++) origin.push(i);
      i += cp.length;
    }
    origin.push(text.length);
    normalised = parts.join('');
  }
  const spans: TermSpan[] = [];
  scanTerms(normalised, options, (term, start, end) => {
    if (!origin) spans.push({ term, start, end });
    else spans.push({ term, start: origin[start]!, end: end >= origin.length ? text.length : origin[end]! });
  });
  return spans;
}
