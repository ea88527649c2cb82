import { describe, expect, it } from 'vitest';
import { node } from '../../../../../app/engine/core/verify/telling/node.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, recognised } from './tool-output.js';

/** jest, vitest and node:test, on their real output (test/fixtures/tool-output/jest/, vitest/, node-test/, node-pg/). */
describe('node', () => {
  it("jest: the error's first line under the failing test's ● heading", () => {
    expect(recognised('jest/expect-order.txt')).toEqual({ line: 'expect(received).toBe(expected) // Object.is equality', tool: 'jest' });
    expect(recognised('jest/type-error.txt')).toEqual({ line: "TypeError: Cannot read properties of undefined (reading 'email')", tool: 'jest' });
    expect(recognised('jest/pg-undefined-table.txt')).toEqual({ line: 'error: relation "orders" does not exist', tool: 'postgres' });
  });

  it('vitest: the error under the FAIL heading, the first of several', () => {
    expect(recognised('vitest/expect-order.txt')).toEqual({ line: 'AssertionError: expected 500 to be 201 // Object.is equality', tool: 'vitest' });
    expect(recognised('vitest/user-two-failures.txt')?.line).toBe('AssertionError: expected 500 to be 201 // Object.is equality');
    expect(recognised('vitest/import-missing.txt')).toEqual({
      line: "Error: Cannot find module './invoice' imported from /tmp/cap/vt/src/missing.test.ts",
      tool: 'vitest',
    });
  });

  it("node:test: TAP's error block, the spec reporter's error line, and the stack head above 'test failed'", () => {
    expect(recognised('node-test/tap-assert-orders.txt')).toEqual({ line: 'error: Expected values to be strictly equal:', tool: 'node:test' });
    expect(recognised('node-test/spec-assert-orders.txt')).toEqual({
      line: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
      tool: 'node:test',
    });
    expect(recognised('node-test/tap-module-not-found.txt')?.line).toBe(
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/tmp/cap/nt/src/notes.js' imported from /tmp/cap/nt/test/notes.test.js",
    );
    expect(node.find(['not ok 1 - x', '  ---', "  error: 'test failed'", "  code: 'ERR_TEST_FAILURE'", '  ...'])).toBeUndefined();
  });

  it('the same failure in two plans has one signature; different failures have different ones', () => {
    expectOneSignature('jest/expect-order.txt', 'jest/expect-user.txt');
    expectOneSignature('vitest/expect-order.txt', 'vitest/user-two-failures.txt');
    expectOneSignature('node-test/tap-assert-orders.txt', 'node-test/tap-assert-users.txt');
    expectOneSignature('jest/pg-undefined-table.txt', 'node-pg/pg-undefined-table-unhandled.txt');
    expectDistinctSignatures(
      'jest/expect-order.txt',
      'jest/type-error.txt',
      'vitest/expect-order.txt',
      'vitest/import-missing.txt',
      'node-test/tap-assert-orders.txt',
      'node-test/spec-assert-orders.txt',
      'node-test/tap-module-not-found.txt',
      'node-pg/pg-undefined-table-unhandled.txt',
      'node-pg/pg-no-user-name.txt',
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(node);
  });
});
