/** UTF-8 byte length of a string without allocating (pure: no TextEncoder or Buffer needed). */
export function utf8Length(text: string, start = 0, end = text.length): number {
  let bytes = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < end) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `bytes` as text when they are valid UTF-8 (a BOM kept as U+FEFF), else null: the one strict
 * decoder — a file, a request or an answer that is not UTF-8 is refused or kept as bytes, never
 * read with replacement characters.
 */
export function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}
