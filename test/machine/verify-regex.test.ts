import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Check } from '../../app/engine/core/spec/model.js';
import { runCheck } from '../../app/engine/core/verify/checks.js';
import { PatternTimeoutError } from '../../app/engine/core/verify/regex.js';
import { localVerifyPorts } from '../../app/machine/verify-ports.js';
import { workerRegexSearch } from '../../app/machine/verify-regex.js';

// A plan's pattern that backtracks without end must be stopped at the check's
// timeout_seconds, with a failure that says so: on the event loop it ran for minutes and
// every timer, the timeout included, waited for it. (No time is asserted here: a pattern
// that ignored the timeout would outlast the test's own timeout and fail it.)
const EVIL = '^(a+)+$';
const root = mkdtempSync(join(tmpdir(), 'harness-regex-'));
writeFileSync(join(root, 'input.txt'), `${'a'.repeat(40)}!\n`);
writeFileSync(join(root, 'app.ts'), 'app.register(\n  invoiceRoutes,\n  { prefix: "/invoices" });\n');
const ports = localVerifyPorts(root);
afterAll(() => ports.close());

describe('user patterns run where a timeout can stop them', () => {
  it('a catastrophic file_contains.pattern fails at timeout_seconds, naming the pattern', async () => {
    const result = await runCheck({ id: 'evil', type: 'file_contains', path: 'input.txt', pattern: EVIL, timeout_seconds: 2 } as Check, ports);
    expect(result.status).toBe('fail');
    expect(result.evidence).toMatch(/^the pattern \/\^\(a\+\)\+\$\/ was still searching after 1\.8 s \(timeout_seconds\) and was stopped; a nested quantifier/);
  });

  it('a catastrophic expect.matches fails the same way after the command ran', async () => {
    const check = { id: 'out', type: 'command_output', command: `printf '${'a'.repeat(40)}!'`, expect: { matches: EVIL }, timeout_seconds: 3 } as Check;
    const result = await runCheck(check, ports);
    expect(result.status).toBe('fail');
    expect(result.evidence).toContain('was still searching after');
  });

  it('an ordinary pattern still matches, across the lines a formatter broke a call over', async () => {
    const result = await runCheck({ id: 'wired', type: 'file_contains', path: 'app.ts', pattern: 'register\\(.*invoiceRoutes' } as Check, ports);
    expect(result).toMatchObject({ status: 'pass' });
    expect(result.evidence).toContain('at lines 1-2');
  });

  it('the worker itself: a match, no match, and a timeout that rejects', async () => {
    await expect(workerRegexSearch({ text: 'xx abc', source: 'b(c)', flags: 'm' }, 5_000)).resolves.toEqual({ index: 4, text: 'bc' });
    await expect(workerRegexSearch({ text: 'xx', source: 'y', flags: 'm' }, 5_000)).resolves.toBeNull();
    await expect(workerRegexSearch({ text: `${'a'.repeat(40)}!`, source: EVIL, flags: '' }, 300)).rejects.toBeInstanceOf(PatternTimeoutError);
  });
});
