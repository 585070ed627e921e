/**
 * Text from outside — a server's answer, a team or file name, an error message, a memory's
 * content — shown to a person must show exactly what it holds and nothing more (issue 15,
 * finding 7). A terminal obeys escape sequences (ESC `[` … moves the cursor, rewrites the
 * title, hides text; a lone C1 CSI U+009B does the same on some terminals), and a right-to-left
 * override turns `evil‮gnp.md` into what reads as `evildm.png`. So every control character
 * (C0 but line feed and tab, DEL, C1), every format character (bidi overrides and isolates,
 * zero-width characters) and the line and paragraph separators are written as `\uXXXX`: visible,
 * never obeyed. The escape is also a valid JSON escape, so JSON text stays JSON.
 */

// Cc: C0, DEL and C1; Cf: format characters (bidi controls, zero-width, BOM…); Zl, Zp: U+2028/9.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
// In running text, line feeds and tabs are layout, and the zero-width (non-)joiners are part of
// writing (emoji sequences 👩‍💻, Persian and Indic scripts): kept.
const INVISIBLE_IN_TEXT = /(?![\n\t\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

function escapeUnit(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `text` with every control and format character written as `\uXXXX`. Line feeds, tabs and the
 * zero-width joiners are kept (text output is made of lines; emoji and scripts need the
 * joiners) unless `lines` is false: a one-line field, such as a name, where every one shows.
 */
export function visibleText(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(options.lines === false ? INVISIBLE : INVISIBLE_IN_TEXT, escapeUnit);
}

/** A name from outside, quoted for a sentence: cut to `max` characters, nothing invisible. */
export function quoteName(name: string, max = 80): string {
  const cut = name.length > max ? `${name.slice(0, max)}…` : name;
  return `"${visibleText(cut, { lines: false }).replace(/"/g, '\\"')}"`;
}
