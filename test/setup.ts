import { beforeEach } from 'vitest';
import { restartApp } from './helpers/app-process.js';

// Each test starts from a new App, as a restarted process does: nothing remembered from the last one.
beforeEach(() => void restartApp());
