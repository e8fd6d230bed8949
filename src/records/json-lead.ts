// Finding the group of filterable fields at the head of a JSON record without parsing the rest, for the
// cheap read of JSON records.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

// RFC 8259 2: ws = *( %x20 / %x09 / %x0A / %x0D )
function skipWs(buf: Buffer, i: number): number {
  for (;;) {
    const b = buf[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return i;
    i++;
  }
}

/**
 * The byte range of the object under `key` (the member name in its quotes, as bytes) when it is the
 * first member of the record, as our encoder and the documented JSON form write it; undefined otherwise
 * (the caller then parses the whole text). Only strings and nesting are followed, so the range is not
 * known to be valid JSON until it is parsed.
 */
export function leadingMemberSpan(buf: Buffer, key: Buffer): { start: number; end: number } | undefined {
  let i = skipWs(buf, 0);
  if (buf[i] !== OPEN_BRACE) return undefined;
  i = skipWs(buf, i + 1);
  // Byte by byte: cheaper than a native compare call for a few bytes.
  for (let k = 0; k < key.length; k++) if (buf[i + k] !== key[k]) return undefined;
  i = skipWs(buf, i + key.length);
  if (buf[i] !== COLON) return undefined;
  i = skipWs(buf, i + 1);
  if (buf[i] !== OPEN_BRACE) return undefined;
  const start = i;
  const len = buf.length;
  let depth = 0;
  for (; i < len; i++) {
    const b = buf[i] as number;
    if (b === QUOTE) {
      for (i++; i < len; i++) {
        const c = buf[i] as number;
        if (c === QUOTE) break;
        if (c === BACKSLASH) i++;
      }
      if (i >= len) return undefined;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return { start, end: i + 1 };
    }
  }
  return undefined;
}
