import { describe, expect, it } from 'vitest';
import { firstError, isErrorHead, recognisedError, tellingLine } from '../../../../app/engine/core/verify/telling-line.js';
import { failureSignature } from '../../../../app/engine/knowledge/signals/signature.js';
import { HOSTILE } from './telling/tool-output.js';

const lines = (text: string) => text.split('\n');

/** The telling line is the first error an output names, read from real tools' output. */
describe('tellingLine', () => {
  it('node --test: the module that could not be found, not the TAP tally or ERR_TEST_FAILURE', () => {
    const out = [
      'TAP version 13',
      '# node:internal/modules/esm/resolve:283',
      '#     throw new ERR_MODULE_NOT_FOUND(',
      '#           ^',
      "# Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/w/src/notes.js' imported from /w/test/notes.test.js",
      '#     at finalizeResolution (node:internal/modules/esm/resolve:283:11)',
      "#   code: 'ERR_MODULE_NOT_FOUND',",
      'not ok 1 - /w/test/notes.test.js',
      "  error: 'test failed'",
      "  code: 'ERR_TEST_FAILURE'",
      '# pass 0',
      '# fail 1',
    ];
    expect(tellingLine(out)).toBe("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/w/src/notes.js' imported from /w/test/notes.test.js");
  });

  it('node --test: an assertion whose message is a YAML block', () => {
    const out = [
      'not ok 1 - adds',
      '  ---',
      '  error: |-',
      '    Expected values to be strictly equal:',
      '',
      '    2 !== 3',
      "  code: 'ERR_ASSERTION'",
      '# fail 1',
    ];
    expect(tellingLine(out)).toBe('error: Expected values to be strictly equal:');
  });

  it('compilers: tsc, gcc and rustc diagnostics, the first of several', () => {
    expect(
      tellingLine(
        lines(
          "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/b.ts(1,1): error TS2304: Cannot find name 'x'.\nFound 2 errors.",
        ),
      ),
    ).toBe("src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(tellingLine(lines("main.c: In function 'main':\nmain.c:4:3: error: 'x' undeclared (first use in this function)\nmake: *** [all] Error 1"))).toBe(
      "main.c:4:3: error: 'x' undeclared (first use in this function)",
    );
    expect(
      tellingLine(lines('   Compiling app v0.1.0\nerror[E0425]: cannot find value `y` in this scope\n --> src/main.rs:2:20\nerror: could not compile `app`')),
    ).toBe('error[E0425]: cannot find value `y` in this scope');
  });

  it('pytest: the first FAILED line of the short summary, or the E line of the traceback above it', () => {
    expect(tellingLine(lines('tests/test_x.py F\n=== short test summary info ===\nFAILED tests/test_x.py::test_add - assert 2 == 3\n1 failed in 0.02s'))).toBe(
      'FAILED tests/test_x.py::test_add - assert 2 == 3',
    );
    expect(
      tellingLine(
        lines("    def test_import():\n>       from pkg import X\nE       ModuleNotFoundError: No module named 'pkg'\nFAILED tests/test_x.py::test_import"),
      ),
    ).toBe("ModuleNotFoundError: No module named 'pkg'");
  });

  it('a tally of no errors names none; an output naming no error has no first error, and its telling line is its last', () => {
    expect(firstError(lines('0 errors, 0 warnings\nbuilding\ndone in 3s'))).toBeUndefined();
    expect(tellingLine(lines('0 errors, 0 warnings\nbuilding\ndone in 3s'))).toBe('done in 3s');
    expect(tellingLine(lines('connecting with ghp_abc123\nSQLITE_BUSY while opening tests/x.db\nretrying'))).toBe('SQLITE_BUSY while opening tests/x.db');
  });
});

describe('recognisedError', () => {
  it('names only an error some tool prints; an unrecognised output has none, though a person still gets a line to read', () => {
    const goTest = [
      '--- FAIL: TestCreateOrder (0.00s)',
      '    order_test.go:7: CreateOrder status = 500, want 201',
      'FAIL',
      'FAIL\texample.com/orders\t0.012s',
      'FAIL',
    ];
    expect(recognisedError(goTest)).toEqual({ line: 'CreateOrder status = 500, want 201', tool: 'go test' });
    const unrecognised = ['building', 'step 3 of 4 failed', 'FAIL'];
    expect(recognisedError(unrecognised)).toBeUndefined();
    // For display only: the last line that says something failed.
    expect(tellingLine(unrecognised)).toBe('FAIL');
    // A line with an error word is what a person reads first; it is no tool's error.
    expect(recognisedError(lines('connecting\ncannot open tests/x.db, retrying\nretrying'))).toBeUndefined();
    expect(firstError(lines('connecting\ncannot open tests/x.db, retrying\nretrying'))).toBe('cannot open tests/x.db, retrying');
    // SQLite's own code is SQLite's error.
    expect(recognisedError(lines('connecting with ghp_abc123\nSQLITE_BUSY while opening tests/x.db\nretrying'))).toEqual({
      line: 'SQLITE_BUSY while opening tests/x.db',
      tool: 'sqlite',
    });
  });

  it("a service's message (a database, the container engine) wins over the runner's earlier lines", () => {
    const out = [
      '=== RUN   TestQuery',
      '    store_test.go:20: connecting',
      '    store_test.go:22: query: pq: relation "orders" does not exist',
      '--- FAIL: TestQuery (0.02s)',
    ];
    expect(recognisedError(out)).toEqual({ line: 'pq: relation "orders" does not exist', tool: 'postgres' });
  });

  it('a line heads an error as output streams by when a recogniser names it on its own', () => {
    expect(isErrorHead('    order_test.go:7: got 500, want 201')).toBe(true);
    expect(isErrorHead('E       psycopg2.errors.UndefinedTable: relation "orders" does not exist')).toBe(true);
    expect(isErrorHead('npm error Missing script: "tset"')).toBe(true);
    expect(isErrorHead('  error: |-')).toBe(false);
    expect(isErrorHead('--- FAIL: TestCreateOrder (0.00s)')).toBe(false);
    expect(isErrorHead('retrying 3')).toBe(false);
  });

  it('returns on 100 kB hostile lines, and their signatures too', () => {
    for (const line of HOSTILE) {
      recognisedError([line, line]);
      tellingLine([line]);
      failureSignature(line);
    }
    expect(failureSignature(`${'a '.repeat(50_000)}: x`)).toBeDefined();
  });
});
