import { formatBytes } from './limits.js';
import { problem, type Problem } from './problem.js';

/** One file of a spec as an adapter hands it to the engine. */
export interface SpecFile {
  /** Relative to the spec directory, forward slashes. */
  path: string;
  /** The file's bytes; adapters may stop reading one byte past the limit. */
  bytes: Uint8Array;
  /** The file's full size when `bytes` was cut short. */
  size?: number;
  /**
   * Set when the path is a symbolic link (its target, as the link says it): never read or
   * followed, only reported, since a fork's link can point anywhere on the machine.
   */
  link?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export type DecodeResult = { ok: true; text: string } | { ok: false; problem: Problem };

/** Decode a file as UTF-8, refusing empty, oversized and non-UTF-8 input with a precise line. */
export function decodeText(file: SpecFile, maxBytes: number): DecodeResult {
  const size = file.size ?? file.bytes.length;
  if (size > maxBytes) {
    return fail(problem(file.path, 1, 'file-too-large', `file is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit; split it into smaller files`));
  }
  let text: string;
  try {
    text = decoder.decode(file.bytes);
  } catch {
    const at = firstInvalidUtf8(file.bytes);
    const line = lineAtByte(file.bytes, at);
    return fail(
      problem(
        file.path,
        line,
        'not-utf8',
        `not valid UTF-8 text (byte ${at} is 0x${(file.bytes[at] ?? 0).toString(16).padStart(2, '0')}); save the file as UTF-8`,
      ),
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') {
    return fail(problem(file.path, 1, 'file-empty', 'file is empty; fill it in from the template in templates/'));
  }
  return { ok: true, text: text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text };
}

function fail(p: Problem): DecodeResult {
  return { ok: false, problem: p };
}

function lineAtByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** Offset of the first byte that does not begin or continue a valid UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    let cp = b & (0xff >> (need + 2));
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}
