import { describe, expect, it } from 'vitest';
import { packages } from '../../../../../app/engine/core/verify/telling/packages.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, recognised } from './tool-output.js';

/** npm, pip, cargo and the go command (test/fixtures/tool-output/npm/, pip/, cargo/, go/). */
describe('packages', () => {
  it("npm: the first line that says what went wrong, not its code, its log or a script's exit", () => {
    expect(recognised('npm/missing-script.txt')).toEqual({ line: 'npm error Missing script: "tset"', tool: 'npm' });
    expect(recognised('npm/ci-without-lockfile.txt')?.line).toBe('npm error The `npm ci` command can only install with an existing package-lock.json or');
    expect(recognised('npm/legacy-e404.txt')).toEqual({ line: 'npm ERR! 404 Not Found - GET https://registry.npmjs.org/left-padd - Not found', tool: 'npm' });
    // npm's words about a test script that failed say nothing of why: nothing is recognised.
    expect(recognised('npm/legacy-test-lifecycle.txt')).toBeUndefined();
    expect(recognised('npm/test-script-failed.txt')).toBeUndefined();
  });

  it('pip, cargo and go modules', () => {
    expect(recognised('pip/no-matching-distribution-pinned.txt')?.tool).toBe('pip');
    expect(recognised('cargo/offline-no-matching-package.txt')?.tool).toBe('cargo');
    expect(recognised('go/mod-no-required-module.txt')).toEqual({
      line: 'main.go:6:2: cannot find module providing package github.com/lib/pq: module lookup disabled by GOPROXY=off',
      tool: 'go mod',
    });
    expect(packages.find(['go: downloading github.com/lib/pq v1.10.7', 'go: finding module for package github.com/lib/pq'])).toBeUndefined();
  });

  it('the same failure in two plans has one signature; different failures have different ones', () => {
    expectOneSignature('pip/no-matching-distribution-flask.txt', 'pip/no-matching-distribution-pinned.txt');
    expectDistinctSignatures(
      'npm/missing-script.txt',
      'npm/ci-without-lockfile.txt',
      'npm/legacy-e404.txt',
      'npm/offline-not-cached.txt',
      'pip/no-matching-distribution-flask.txt',
      'cargo/offline-no-matching-package.txt',
      'go/mod-updates-needed.txt',
      'go/mod-missing-go-sum.txt',
      'go/mod-no-required-module.txt',
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(packages);
  });
});
