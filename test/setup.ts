import { beforeEach } from 'vitest';
import { forgetAppMemory } from '../app/github/app-memory.js';
import { skipAppWaits } from './helpers/app-clock.js';

// Each test starts from a new App, as a restarted process does: nothing remembered from the last one.
// Its pace waits on skipped time, not the test's (helpers/app-clock.ts).
beforeEach(() => {
  forgetAppMemory();
  skipAppWaits();
});
