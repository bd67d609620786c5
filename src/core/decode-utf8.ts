import { MemError } from './errors.js';

// fatal: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD; ignoreBOM keeps a
// leading BOM in the text, as Buffer#toString does, so a rewrite puts it back.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Where the first byte sequence that is not UTF-8 starts in `bytes`, or undefined when all of it
 * is (the rules of the WHATWG decoder: no overlong forms, no surrogates, nothing past U+10FFFF).
 */
export function invalidUtf8At(bytes: Uint8Array): number | undefined {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    // The allowed range of the second byte, and how many continuation bytes follow the lead.
    let low = 0x80;
    let high = 0xbf;
    let tail: number;
    if (lead >= 0xc2 && lead <= 0xdf) tail = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      tail = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      tail = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= tail; k++) {
      const byte = bytes[i + k];
      if (byte === undefined) return i;
      if (k === 1 ? byte < low || byte > high : byte < 0x80 || byte > 0xbf) return i;
    }
    i += tail + 1;
  }
  return undefined;
}

/** `not valid UTF-8 text (byte 0xE9 at offset 3)`, or undefined when `bytes` are UTF-8. */
export function invalidUtf8Reason(bytes: Uint8Array): string | undefined {
  const at = invalidUtf8At(bytes);
  if (at === undefined) return undefined;
  const byte = bytes[at]!.toString(16).toUpperCase().padStart(2, '0');
  return `not valid UTF-8 text (byte 0x${byte} at offset ${at})`;
}

/**
 * Decodes UTF-8, refusing bytes that are not: decoding them would turn each into U+FFFD, and a
 * rewrite would then replace the user's text (a Latin-1 `é`) for good.
 */
export function decodeUtf8(bytes: Uint8Array, path: string): string {
  try {
    return strict.decode(bytes);
  } catch {
    throw new MemError('INVALID_ARGUMENT', `${path} is ${invalidUtf8Reason(bytes)}; mem will not rewrite it`);
  }
}
