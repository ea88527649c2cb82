import { SPEC_ID } from '../../core/spec/schema.js';

const FROM_DIR = /^([A-Z][A-Z0-9]*-\d+)(?:[-_.].*)?$/;

/** "SPC-003-billing" → "SPC-003"; a directory name without an id gives undefined. */
export function specIdFromDir(name: string): string | undefined {
  const base = name.replace(/\\/g, '/').replace(/\/+$/, '').split('/').pop() ?? '';
  const m = FROM_DIR.exec(base);
  return m && SPEC_ID.test(m[1]!) ? m[1] : undefined;
}
