import { join } from 'node:path';

/** The repository's root, wherever a test file sits below test/. */
export const ROOT = join(import.meta.dirname, '..', '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures');
/** The example spec that `npm start` runs. */
export const EXAMPLE_SPEC = join(ROOT, 'examples', 'specs', 'SPC-001-notes-service');
