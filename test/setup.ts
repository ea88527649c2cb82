import { beforeEach } from 'vitest';
import { restartApp } from './helpers/app-process.js';
import { skippingClock } from './helpers/app-clock.js';

// Each test starts from a new App, as a restarted process does: nothing remembered from the last one.
// Its pace waits on skipped time, not the test's (helpers/app-clock.ts).
beforeEach(() => void restartApp({ clock: skippingClock() }));
