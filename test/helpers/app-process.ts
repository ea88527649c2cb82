import { AppMemory } from '../../app/github/app-memory.js';
import { skippingClock } from './app-clock.js';

/**
 * The App process the tests' Probots stand for (testProbot): every one of them shares its
 * memory (app-memory.ts), as deliveries to one process do, until restartApp() or endApp().
 * test/setup.ts ends it before each test: the next process remembers nothing.
 */
let memory: AppMemory | undefined;

/** The memory of the App process the tests' Probots share: made at the first delivery after a restart, as a process makes it when it starts. */
export function appProcessMemory(): AppMemory {
  memory ??= new AppMemory({ clock: skippingClock() });
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

/**
 * The App process ended: the next delivery finds a new one with the default settings
 * (restartApp's). Its memory is made only if a test delivers something, which most do not: a
 * memory holds caches a few thousand entries long, and test/setup.ts ends the App before each
 * of some two thousand tests.
 */
export function endApp(): void {
  memory = undefined;
}
