import { describe, expect, it } from 'vitest';
import { failureSignature } from '../../../../app/engine/knowledge/signals/signature.js';

/** A failure's signature (knowledge/signals/signature.ts): what varies masked, the error kept. */
describe('failure signatures', () => {
  it('masks numbers, hex, ids, dates, temporary and absolute paths and ports, and keeps the error class and message', () => {
    expect(failureSignature('Error: SQLITE_BUSY: database is locked (/tmp/vitest-8a1f/db.sqlite, pid 4127)')).toBe(
      'Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)',
    );
    expect(failureSignature('Error: listen EADDRINUSE: address already in use 127.0.0.1:3000')).toBe(
      'Error: listen EADDRINUSE: address already in use <n>:<port>',
    );
    expect(failureSignature('at 2026-03-02T09:30:00Z commit 3f9c2a7d1e order 5b0e7c4e-8f1a-4c2b-9d3e-1a2b3c4d5e6f failed')).toBe(
      'at <date> commit <hex> order <id> failed',
    );
    expect(failureSignature("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/ci/app/dist/db/pool' imported from /home/ci/app/dist/a.js")).toBe(
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '<path>' imported from <path>",
    );
  });

  it('keeps numbers that are part of a name (TS2345, sqlite3) and the words of the message; masks where it was', () => {
    expect(failureSignature("src/a.ts(3,7): error TS2345: Argument of type 'string' is not assignable to sqlite3 Database")).toBe(
      "<location>: error TS2345: Argument of type 'string' is not assignable to sqlite3 Database",
    );
  });

  it('gives the same signature to the same error in two plans, and none to a line with nothing to tell', () => {
    expect(failureSignature('AssertionError: expected 200, got 500 (test 01-02)')).toBe(failureSignature('AssertionError: expected 200, got 500 (test 03-07)'));
    expect(failureSignature('   ')).toBeUndefined();
    expect(failureSignature('12 34')).toBeUndefined();
    expect(failureSignature(undefined)).toBeUndefined();
  });
});

describe('the name a message ends on', () => {
  it('is masked when it is what was missing, after a message of a few words', () => {
    expect(failureSignature('SqliteError: no such table: main.notes')).toBe('SqliteError: no such table: <name>');
    expect(failureSignature('SqliteError: no such table: main.tags')).toBe('SqliteError: no such table: <name>');
    expect(failureSignature("ModuleNotFoundError: No module named 'etl.readers'")).toBe("ModuleNotFoundError: No module named '<name>'");
    expect(failureSignature("UnicodeDecodeError: 'utf-8' codec can't decode byte 0x9f in position 12: invalid start byte")).toBe(
      "UnicodeDecodeError: 'utf-8' codec can't decode byte <hex> in position <n>: invalid start byte",
    );
  });

  it('is kept when it is an error code or the whole message', () => {
    expect(failureSignature('Error: ENOENT')).toBe('Error: ENOENT');
    expect(failureSignature('Error: timeout')).toBe('Error: timeout');
    expect(failureSignature('Error: SQLITE_BUSY: database is locked')).toBe('Error: SQLITE_BUSY: database is locked');
  });
});

describe('what varies between plans is masked; what tells two kinds apart is kept', () => {
  it("masks a test framework's file:line: location, wherever the file is", () => {
    expect(failureSignature('user_test.go:42: got 500, want 201')).toBe(failureSignature('order_test.go:7: got 409, want 200'));
    expect(failureSignature('tests/test_x.py:17: AssertionError')).toBe('<location>: AssertionError');
    expect(failureSignature("src/a.test.ts:3:5 - error TS2304: Cannot find name 'x'.")).toBe(
      failureSignature("src/b.ts(9,1): error TS2304: Cannot find name 'x'."),
    );
  });

  it('masks quoted names of tables, columns, constraints, indexes, modules, tests and tasks', () => {
    expect(failureSignature('relation "orders" does not exist')).toBe(failureSignature('relation "users" does not exist'));
    expect(failureSignature('duplicate key value violates unique constraint "users_email_key"')).toBe(
      failureSignature('duplicate key value violates unique constraint "orders_ref_key"'),
    );
    expect(failureSignature('column "emial" of relation "users" does not exist')).toBe('column "<name>" of relation "<name>" does not exist');
    expect(failureSignature("Error 1062 (23000): Duplicate entry 'ada@x.org' for key 'users.email'")).toBe(
      "Error 1062 (23000): Duplicate entry '<name>' for key '<name>'",
    );
    expect(failureSignature('npm error Missing script: "tset"')).toBe('npm error Missing script: "<name>"');
  });

  it("masks a model's or a class's attribute inside the message, not the error's own dotted class", () => {
    const django = (field: string) =>
      `RuntimeWarning: DateTimeField ${field} received a naive datetime (2026-03-01 00:00:00) while time zone support is active.`;
    expect(failureSignature(django('Invoice.due_at'))).toBe(failureSignature(django('UsageRecord.issued_at')));
    expect(failureSignature(django('Invoice.due_at'))).toBe(
      'RuntimeWarning: DateTimeField <name> received a naive datetime (<date>) while time zone support is active.',
    );
    expect(failureSignature('botocore.exceptions.NoCredentialsError: Unable to locate credentials')).toBe(
      'botocore.exceptions.NoCredentialsError: Unable to locate credentials',
    );
  });

  it("makes one signature of Go's HTTP client error whatever task wrapped it and whatever URL it called", () => {
    const timeout = (task: string, url: string) => `${task}: Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
    const signature = 'Get "<url>": context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
    expect(failureSignature(timeout('enrich invoice 7', 'http://127.0.0.1:38328/v1/invoices/7'))).toBe(signature);
    expect(failureSignature(timeout('enrich tax rate 3', 'http://127.0.0.1:41002/v1/tax_rates/3'))).toBe(signature);
    expect(failureSignature('Post "https://api.example.com/v2/charges": dial tcp 10.0.0.7:443: connect: connection refused')).toBe(
      'Post "<url>": dial tcp <n>:<n>: connect: connection refused',
    );
  });

  it('keeps the package of a Go identifier that is undefined: a mock never generated is not a typo', () => {
    expect(failureSignature('internal/billing/reconcile_test.go:21:12: undefined: mocks.NewMockMandateStore')).toBe('<location>: undefined: mocks.<name>');
    expect(failureSignature('internal/reports/approve_test.go:19:12: undefined: mocks.NewMockBalanceStore')).toBe('<location>: undefined: mocks.<name>');
    expect(failureSignature('build/order_test.go:6:5: undefined: CreateInvoice')).toBe('<location>: undefined: <name>');
  });

  it('makes one signature of a Go panic whatever its addresses and indexes', () => {
    const nil = (addr: string, pc: string) =>
      `panic: runtime error: invalid memory address or nil pointer dereference [signal SIGSEGV: segmentation violation code=0x1 addr=${addr} pc=${pc}]`;
    expect(failureSignature(nil('0x0', '0x4a5b2c'))).toBe(failureSignature(nil('0x18', '0x5c1d3e')));
    expect(failureSignature(nil('0x0', '0x4a5b2c'))).toBe(
      'panic: runtime error: invalid memory address or nil pointer dereference [signal SIGSEGV: segmentation violation code=<hex> addr=<hex> pc=<hex>]',
    );
    expect(failureSignature('panic: runtime error: index out of range [3] with length 2')).toBe(
      failureSignature('panic: runtime error: index out of range [7] with length 5'),
    );
  });

  it('masks test names in runner lines, durations, hashes and container ids', () => {
    expect(failureSignature('--- FAIL: TestCreateOrder (0.01s)')).toBe(failureSignature('--- FAIL: TestCreateUser (1.20s)'));
    expect(failureSignature('--- FAIL: TestCreateOrder (0.01s)')).toBe('--- FAIL: <test> (<duration>)');
    expect(failureSignature('FAILED tests/test_orders.py::test_total - assert 4 == 3')).toBe(
      failureSignature('FAILED tests/test_users.py::test_count - assert 10 == 9'),
    );
    expect(failureSignature('build took 12ms, then 3.2 seconds, then 1m30s')).toBe('build took <duration>, then <duration>, then <duration>');
    expect(failureSignature('container 3f4e8a1b9c2d exited')).toBe(failureSignature('container deadbeefcafe exited'));
    expect(failureSignature(`image ${'a'.repeat(32)}${'b1'.repeat(16)} not found`)).toBe('image <hex> not found');
  });

  it('keeps SQLSTATE codes, MySQL error numbers, error classes and the words of the message', () => {
    expect(failureSignature('ERROR: relation "orders" does not exist (SQLSTATE 42P01)')).toBe('ERROR: relation "<name>" does not exist (SQLSTATE 42P01)');
    expect(failureSignature('ERROR: duplicate key value violates unique constraint "k" (SQLSTATE 23505)')).toContain('SQLSTATE 23505');
    expect(failureSignature("Error 1146 (42S02): Table 'shop.orders' doesn't exist")).toBe("Error 1146 (42S02): Table '<name>' doesn't exist");
    expect(failureSignature("pymysql.err.ProgrammingError: (1146, \"Table 'shop.orders' doesn't exist\")")).toContain('(1146, ');
    expect(failureSignature('psycopg2.errors.UndefinedTable: relation "orders" does not exist')).not.toBe(
      failureSignature('psycopg2.errors.UndefinedColumn: column "orders" does not exist'),
    );
    expect(failureSignature('pq: relation "orders" does not exist')).not.toBe(failureSignature('pq: relation "orders" already exists'));
  });
});
