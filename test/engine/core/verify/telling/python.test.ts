import { describe, expect, it } from 'vitest';
import { python } from '../../../../../app/engine/core/verify/telling/python.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, recognised } from './tool-output.js';

/** pytest and Python tracebacks, on their real output (test/fixtures/tool-output/pytest/, python/, pip/). */
describe('python', () => {
  it("pytest: the first E line, the exception a chain starts with, not the summary's cut line", () => {
    expect(recognised('pytest/assert-orders.txt')).toEqual({ line: 'assert 4 == 3', tool: 'pytest' });
    expect(recognised('pytest/key-error.txt')).toEqual({ line: "KeyError: 'order_email'", tool: 'pytest' });
    expect(recognised('pytest/collection-module-not-found.txt')).toEqual({ line: "ModuleNotFoundError: No module named 'etl'", tool: 'pytest' });
    // SQLAlchemy's wrapping comes second in the chain: the driver's error is the cause.
    expect(recognised('pytest/sqlalchemy-undefined-table.txt')).toEqual({
      line: 'psycopg2.errors.UndefinedTable: relation "orders" does not exist',
      tool: 'postgres',
    });
    expect(recognised('pytest/pymysql-table-missing.txt')).toEqual({
      line: "pymysql.err.ProgrammingError: (1146, \"Table 'shop.orders' doesn't exist\")",
      tool: 'mysql',
    });
    expect(recognised('pytest/sqlite-no-such-table.txt')).toEqual({ line: 'sqlite3.OperationalError: no such table: orders', tool: 'sqlite' });
  });

  it("pytest's short summary when there is no E line; a traceback's exception line outside pytest", () => {
    expect(python.find(['=== short test summary info ===', 'FAILED tests/test_x.py::test_add - assert 2 == 3', '1 failed in 0.02s'])).toMatchObject({
      line: 'FAILED tests/test_x.py::test_add - assert 2 == 3',
      tool: 'pytest',
    });
    expect(python.find(['Traceback (most recent call last):', '  File "etl.py", line 3, in <module>', '    main()', "KeyError: 'email'"])).toMatchObject({
      line: "KeyError: 'email'",
      tool: 'python',
    });
    expect(recognised('python/traceback-duplicate-column.txt')).toEqual({
      line: 'psycopg2.errors.DuplicateColumn: column "email" of relation "accounts" already exists',
      tool: 'postgres',
    });
  });

  it('pip: the requirement that could not be satisfied', () => {
    expect(recognised('pip/no-matching-distribution-flask.txt')).toEqual({
      line: 'ERROR: Could not find a version that satisfies the requirement flask>=99 (from versions: none)',
      tool: 'pip',
    });
  });

  it('the same failure in two plans has one signature; different failures have different ones', () => {
    expectOneSignature('pytest/assert-orders.txt', 'pytest/assert-users.txt');
    expectOneSignature(
      'pytest/psycopg2-undefined-table-orders.txt',
      'pytest/psycopg2-undefined-table-users.txt',
      'pytest/sqlalchemy-undefined-table.txt',
      'pytest/tb-line-two-failures.txt',
    );
    expectOneSignature('pip/no-matching-distribution-flask.txt', 'pip/no-matching-distribution-pinned.txt');
    expectDistinctSignatures(
      'pytest/assert-orders.txt',
      'pytest/key-error.txt',
      'pytest/collection-module-not-found.txt',
      'pytest/psycopg2-undefined-table-orders.txt',
      'pytest/psycopg2-unique-users.txt',
      'pytest/pymysql-table-missing.txt',
      'pytest/sqlite-no-such-table.txt',
      'python/traceback-duplicate-column.txt',
      'pip/no-matching-distribution-flask.txt',
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(python);
  });
});
