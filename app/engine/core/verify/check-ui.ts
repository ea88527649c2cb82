import type { Check } from '../spec/model.js';
import { fail, pass, type CheckContext, type Finding } from './check-result.js';
import { quote } from './evidence.js';
import type { BrowserPage, UiStep, VerifyPorts } from './ports.js';
import { targetUrl } from './target-url.js';

type UiElementExists = Extract<Check, { type: 'ui_element_exists' }>;
type UiNavigation = Extract<Check, { type: 'ui_navigation' }>;

/** One time budget for the whole check: each browser step gets what is left. */
function budget(ports: VerifyPorts, timeoutMs: number): () => number {
  const end = ports.clock.monotonic() + timeoutMs;
  return () => Math.max(1, end - ports.clock.monotonic());
}

async function withPage<T>(ports: VerifyPorts, use: (page: BrowserPage) => Promise<T>): Promise<T> {
  const browser = await ports.browser();
  const page = await browser.newPage();
  try {
    return await use(page);
  } finally {
    await page.close().catch(() => undefined);
  }
}

/** The element appears (attached to the page) within the time, and contains `text` when given. */
export async function checkUiElementExists(check: UiElementExists, ports: VerifyPorts, ctx: CheckContext, timeoutMs: number): Promise<Finding> {
  const target = targetUrl(check.url, ctx);
  if ('error' in target) return fail(target.error);
  const left = budget(ports, timeoutMs);
  return withPage(ports, async (page) => {
    await page.goto(target.url, left());
    const text = await page.textOf(check.selector, left());
    if (text === undefined) return fail(`no element matches ${check.selector} at ${page.url()}`);
    const shown = quote(text.trim(), 100);
    if (check.text !== undefined && !text.includes(check.text)) {
      return fail(`${check.selector} at ${page.url()} has text ${shown}, which does not contain ${quote(check.text)}`);
    }
    return pass(`${check.selector} found at ${page.url()} with text ${shown}`);
  });
}

function describeStep(step: UiStep): string {
  if (step.goto !== undefined) return `goto ${step.goto}`;
  if (step.click !== undefined) return `click ${step.click}`;
  if (step.fill !== undefined) return `fill ${step.fill}`;
  if (step.press !== undefined) return `press ${step.key ?? ''} in ${step.press}`;
  return `wait_for ${step.wait_for ?? ''}`;
}

async function runStep(page: BrowserPage, step: UiStep, ctx: CheckContext, left: () => number): Promise<string | undefined> {
  if (step.goto !== undefined) {
    const target = targetUrl(step.goto, ctx);
    if ('error' in target) return target.error;
    await page.goto(target.url, left());
  } else if (step.click !== undefined) await page.click(step.click, left());
  else if (step.fill !== undefined) await page.fill(step.fill, step.value ?? '', left());
  else if (step.press !== undefined) await page.press(step.press, step.key ?? 'Enter', left());
  else if (step.wait_for !== undefined) {
    if ((await page.textOf(step.wait_for, left())) === undefined) return `${step.wait_for} never appeared`;
  }
  return undefined;
}

/**
 * Where the steps led: an expected URL is resolved against the page's and compared whole when
 * it has a query or fragment, else by origin and path (so "/dashboard" accepts "/dashboard?tab=1").
 */
function sameUrl(expected: string, actual: string): boolean {
  let want: URL;
  let got: URL;
  try {
    want = new URL(expected, actual);
    got = new URL(actual);
  } catch {
    return false;
  }
  const trim = (p: string) => p.replace(/\/+$/, '') || '/';
  if (want.search !== '' || want.hash !== '') return want.href === got.href;
  return want.origin === got.origin && trim(want.pathname) === trim(got.pathname);
}

export async function checkUiNavigation(check: UiNavigation, ports: VerifyPorts, ctx: CheckContext, timeoutMs: number): Promise<Finding> {
  const target = targetUrl(check.url, ctx);
  if ('error' in target) return fail(target.error);
  const { url, selector, text } = check.expect;
  if (url === undefined && selector === undefined && text === undefined) {
    return fail('expect names none of url, selector, text, so the check could not fail; add one');
  }
  const left = budget(ports, timeoutMs);
  return withPage(ports, async (page) => {
    await page.goto(target.url, left());
    for (const [i, step] of check.steps.entries()) {
      let problem: string | undefined;
      try {
        problem = await runStep(page, step, ctx, left);
      } catch (e) {
        problem = (e as Error).message.split('\n')[0];
      }
      if (problem !== undefined) return fail(`step ${i + 1} (${describeStep(step)}) failed at ${page.url()}: ${problem}`);
    }
    const at = page.url();
    if (url !== undefined && !sameUrl(url, at)) return fail(`after ${check.steps.length} steps the page is at ${at}, expected ${url}`);
    const seen: string[] = [`after ${check.steps.length} steps at ${at}`];
    if (selector !== undefined || text !== undefined) {
      const where = selector ?? 'body';
      const found = await page.textOf(where, left());
      if (found === undefined) return fail(`${seen[0]}: no element matches ${where}`);
      if (text !== undefined && !found.includes(text)) {
        return fail(`${seen[0]}: ${where} has text ${quote(found.trim(), 100)}, which does not contain ${quote(text)}`);
      }
      seen.push(`${where} has text ${quote(found.trim(), 100)}`);
    }
    return pass(seen.join('; '));
  });
}
