import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { BrowserUnavailableError, type BrowserPage, type BrowserPort } from '../engine/core/verify/ports.js';

/** Debian's chromium package installs here; HARNESS_CHROMIUM names another executable. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * Headless, sandbox off (containers and CI runners rarely allow Chromium's), and none of
 * Chromium's own traffic: on a closed network its background fetches only stall it.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const LAUNCH_TIMEOUT_MS = 60_000;
/** Loaded by name at run time: only the ui checks need it, so the rest of harness works without it. */
const PLAYWRIGHT = 'playwright-core';

/** The few parts of playwright-core used here, so that type-checking does not need it installed. */
interface PwLocator {
  first(): PwLocator;
  waitFor(options: { state: 'attached'; timeout: number }): Promise<void>;
  textContent(options: { timeout: number }): Promise<string | null>;
}
interface PwPage {
  goto(url: string, options: { timeout: number; waitUntil: 'load' }): Promise<unknown>;
  locator(selector: string): PwLocator;
  click(selector: string, options: { timeout: number }): Promise<void>;
  fill(selector: string, value: string, options: { timeout: number }): Promise<void>;
  press(selector: string, key: string, options: { timeout: number }): Promise<void>;
  url(): string;
}
interface PwContext {
  newPage(): Promise<PwPage>;
  close(): Promise<void>;
}
interface PwBrowser {
  newContext(): Promise<PwContext>;
  close(): Promise<void>;
}
interface PwModule {
  chromium: { launch(options: { executablePath: string; headless: boolean; args: string[]; timeout: number }): Promise<PwBrowser> };
}

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.HARNESS_CHROMIUM || DEFAULT_CHROMIUM;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

async function launch(executable: string, fromEnv: boolean): Promise<PwBrowser> {
  try {
    await access(executable, constants.X_OK);
  } catch {
    const where = fromEnv ? `HARNESS_CHROMIUM points at ${executable}, which is not an executable file` : `no Chromium at ${executable}`;
    throw new BrowserUnavailableError(
      `${where}. The ui_element_exists and ui_navigation checks drive a headless Chromium: install Debian's package with ` +
        `"apt-get install chromium" (it provides ${DEFAULT_CHROMIUM}), or set HARNESS_CHROMIUM to a Chromium or Chrome executable.`,
    );
  }
  let pw: PwModule;
  try {
    pw = (await import(PLAYWRIGHT)) as PwModule;
  } catch {
    throw new BrowserUnavailableError('the ui checks need the npm package playwright-core, which is not installed: run "npm install playwright-core".');
  }
  try {
    // launch() gives each browser a fresh temporary profile (user-data dir) and removes it on close.
    return await pw.chromium.launch({ executablePath: executable, headless: true, args: CHROMIUM_ARGS, timeout: LAUNCH_TIMEOUT_MS });
  } catch (e) {
    throw new BrowserUnavailableError(`Chromium at ${executable} did not start: ${firstLine(e)}`);
  }
}

function isTimeout(e: unknown): boolean {
  return e instanceof Error && e.name === 'TimeoutError';
}

/** One page in a context of its own: no cookies or storage leak from one check to the next. */
async function openPage(browser: PwBrowser): Promise<BrowserPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  return {
    async goto(url, timeoutMs) {
      await page.goto(url, { timeout: timeoutMs, waitUntil: 'load' });
    },
    async textOf(selector, timeoutMs) {
      const locator = page.locator(selector).first();
      try {
        await locator.waitFor({ state: 'attached', timeout: timeoutMs });
        return (await locator.textContent({ timeout: timeoutMs })) ?? '';
      } catch (e) {
        if (isTimeout(e)) return undefined;
        throw e;
      }
    },
    async click(selector, timeoutMs) {
      await page.click(selector, { timeout: timeoutMs });
    },
    async fill(selector, value, timeoutMs) {
      await page.fill(selector, value, { timeout: timeoutMs });
    },
    async press(selector, key, timeoutMs) {
      await page.press(selector, key, { timeout: timeoutMs });
    },
    url: () => page.url(),
    close: () => context.close(),
  };
}

/**
 * The browser, launched on first use and shared by every ui check of a run; a launch that
 * failed is not retried (a missing browser does not appear mid-run).
 */
export class LazyBrowser {
  private launched?: Promise<PwBrowser>;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async port(): Promise<BrowserPort> {
    this.launched ??= launch(chromiumPath(this.env), Boolean(this.env.HARNESS_CHROMIUM));
    const browser = await this.launched;
    return { newPage: () => openPage(browser) };
  }

  async close(): Promise<void> {
    const launched = this.launched;
    this.launched = undefined;
    if (!launched) return;
    const browser = await launched.catch(() => undefined);
    await browser?.close().catch(() => undefined);
  }
}
