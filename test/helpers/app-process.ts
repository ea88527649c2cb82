import { AppMemory } from '../../app/github/app-memory.js';
import { skippingClock } from './app-clock.js';

/**
 * The App process the tests' Probots stand for (testProbot): every one of them shares its
 * memory (app-memory.ts), as deliveries to one process do, until restartApp(). test/setup.ts
 * restarts it before each test: a restarted process remembers nothing.
 */
let memory = new AppMemory({ clock: skippingClock() });

/** The memory of the App process the tests' Probots share. */
export function appProcessMemory(): AppMemory {
  return memory;
}

/**
 * A new App process: nothing remembered, with these settings (its pace, its clock). Its pace
 * waits on a skipping clock unless told otherwise: a test never sleeps out GitHub's limits.
 */
export function restartApp(options: ConstructorParameters<typeof AppMemory>[0] = {}): AppMemory {
  memory = new AppMemory({ clock: skippingClock(), ...options });
  return memory;
}
