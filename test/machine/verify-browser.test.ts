import { constants, accessSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../app/engine/core/verify/checks.js';
import { BrowserUnavailableError, type ServerHandle } from '../../app/engine/core/verify/ports.js';
import { chromiumPath } from '../../app/machine/verify-browser.js';
import { localVerifyPorts, type LocalVerifyPorts } from '../../app/machine/verify-ports.js';
import { addServer, check, tempRepo } from '../fixtures/verify/repo.js';

/**
 * The ui checks drive a real headless Chromium (Debian's chromium package, through
 * playwright-core). Where none is installed these tests are skipped with a message, except
 * on CI, which must install it: there a missing browser fails the run.
 */
function browserMissing(): string | undefined {
  const path = chromiumPath();
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return `no Chromium at ${path} (apt-get install chromium, or set HARNESS_CHROMIUM)`;
  }
  try {
    createRequire(import.meta.url).resolve('playwright-core');
  } catch {
    return 'playwright-core is not installed (npm install playwright-core)';
  }
  return undefined;
}

const missing = browserMissing();
if (missing && !process.env.CI) console.warn(`verify-ui: skipping the browser tests: ${missing}`);

describe('a missing browser', () => {
  it('is a clear BrowserUnavailableError naming what to install, and fails ui checks with that message', async () => {
    const repo = tempRepo();
    const ports = localVerifyPorts(repo.root, { processEnv: { HARNESS_CHROMIUM: '/nonexistent/chromium' } });
    try {
      const error = await ports.browser().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrowserUnavailableError);
      expect((error as Error).message).toBe(
        'HARNESS_CHROMIUM points at /nonexistent/chromium, which is not an executable file. The ui_element_exists and ui_navigation checks ' +
          'drive a headless Chromium: install Debian\'s package with "apt-get install chromium" (it provides /usr/bin/chromium), ' +
          'or set HARNESS_CHROMIUM to a Chromium or Chrome executable.',
      );
      const r = await runCheck(check({ id: 'ui', type: 'ui_element_exists', url: 'http://127.0.0.1:9/', selector: 'h1' }), ports);
      expect(r.status).toBe('fail');
      expect(r.evidence).toContain('apt-get install chromium');
    } finally {
      await ports.close();
      repo.remove();
    }
  });
});

describe('a browser is there for these tests', () => {
  it.runIf(process.env.CI)('on CI, Chromium and playwright-core are installed', () => {
    expect(missing, 'CI must install Chromium (apt-get install -y chromium) and playwright-core').toBeUndefined();
  });
});

describe.skipIf(missing !== undefined)('ui checks in a real headless Chromium', () => {
  let repo: ReturnType<typeof tempRepo>;
  let ports: LocalVerifyPorts;
  let server: ServerHandle;
  const ctx = () => ({ baseUrl: server.baseUrl });

  beforeAll(async () => {
    repo = tempRepo();
    addServer(repo.root);
    ports = localVerifyPorts(repo.root);
    server = await ports.serve({ command: 'node server.mjs', url: 'http://127.0.0.1:{port}', timeout_seconds: 20 });
  });

  afterAll(async () => {
    await ports.close();
    repo.remove();
  });

  it('ui_element_exists finds an element and its text on a page of the served app', async () => {
    const r = await runCheck(check({ id: 'title', type: 'ui_element_exists', url: '/', selector: '#title', text: 'Welcome' }), ports, ctx());
    expect(r.evidence).toBe(`#title found at ${server.baseUrl}/ with text "Welcome home"`);
    expect(r.status).toBe('pass');
  });

  it('ui_element_exists fails when the element is missing or its text differs', async () => {
    const gone = await runCheck(check({ id: 'nav', type: 'ui_element_exists', url: '/', selector: 'nav.main', timeout_seconds: 5 }), ports, ctx());
    expect(gone).toMatchObject({ status: 'fail', evidence: `no element matches nav.main at ${server.baseUrl}/` });
    const text = await runCheck(check({ id: 'title', type: 'ui_element_exists', url: '/', selector: '#title', text: 'Goodbye' }), ports, ctx());
    expect(text).toMatchObject({ status: 'fail', evidence: `#title at ${server.baseUrl}/ has text "Welcome home", which does not contain "Goodbye"` });
  });

  it('ui_navigation fills a form, submits it, and lands where expected with the text shown', async () => {
    const r = await runCheck(
      check({
        id: 'login',
        type: 'ui_navigation',
        url: '/login',
        steps: [{ fill: '#user', value: 'ada' }, { click: '#submit' }, { wait_for: '#dash' }],
        expect: { url: '/dashboard', selector: '#hello', text: 'Hello, ada' },
      }),
      ports,
      ctx(),
    );
    expect(r.evidence).toBe(`after 3 steps at ${server.baseUrl}/dashboard?user=ada; #hello has text "Hello, ada"`);
    expect(r.status).toBe('pass');
    const link = await runCheck(
      check({ id: 'go', type: 'ui_navigation', url: '/', steps: [{ click: '#go' }], expect: { url: '/dashboard', text: 'Dashboard' } }),
      ports,
      ctx(),
    );
    expect(link.status).toBe('pass');
  });

  it('ui_navigation fails on the wrong page, on missing text, and on a step that cannot be done', async () => {
    const where = await runCheck(check({ id: 'go', type: 'ui_navigation', url: '/', steps: [{ click: '#go' }], expect: { url: '/settings' } }), ports, ctx());
    expect(where).toMatchObject({ status: 'fail', evidence: `after 1 steps the page is at ${server.baseUrl}/dashboard, expected /settings` });
    const text = await runCheck(
      check({
        id: 'login',
        type: 'ui_navigation',
        url: '/login',
        steps: [{ fill: '#user', value: 'bob' }, { press: '#user', key: 'Enter' }, { wait_for: '#dash' }],
        expect: { selector: '#hello', text: 'Hello, ada' },
      }),
      ports,
      ctx(),
    );
    expect(text).toMatchObject({
      status: 'fail',
      evidence: `after 3 steps at ${server.baseUrl}/dashboard?user=bob: #hello has text "Hello, bob", which does not contain "Hello, ada"`,
    });
    const step = await runCheck(
      check({ id: 'x', type: 'ui_navigation', url: '/', timeout_seconds: 3, steps: [{ click: '#does-not-exist' }], expect: { url: '/dashboard' } }),
      ports,
      ctx(),
    );
    expect(step.status).toBe('fail');
    expect(step.evidence).toMatch(new RegExp(`^step 1 \\(click #does-not-exist\\) failed at ${server.baseUrl}/: .*Timeout`));
  });
});
