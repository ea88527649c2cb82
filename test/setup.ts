import { beforeEach } from 'vitest';
import { forgetAppMemory } from '../app/github/app-memory.js';

// Each test starts from a new App, as a restarted process does: nothing remembered from the last one.
beforeEach(() => forgetAppMemory());
