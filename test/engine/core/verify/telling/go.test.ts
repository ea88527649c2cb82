import { describe, expect, it } from 'vitest';
import { go } from '../../../../../app/engine/core/verify/telling/go.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, output, recognised } from './tool-output.js';

/** go test, go build and go vet, on their real output (test/fixtures/tool-output/go/). */
describe('go', () => {
  it("a failing test's cause is its message after file_test.go:NN:, not --- FAIL: nor the closing FAIL", () => {
    expect(recognised('go/assert-order.txt')).toEqual({ line: 'CreateOrder status = 500, want 201', tool: 'go test' });
    // With -v, a passing test's t.Log and the failing test's own log line before its error are not the cause.
    expect(recognised('go/assert-user-verbose.txt')).toEqual({ line: 'CreateUser status = 409, want 201', tool: 'go test' });
    expect(recognised('go/panic-nil.txt')).toEqual({ line: 'panic: runtime error: invalid memory address or nil pointer dereference', tool: 'go test' });
    expect(recognised('go/build-undefined.txt')).toEqual({ line: 'build/order_test.go:6:5: undefined: CreateInvoice', tool: 'go build' });
    expect(recognised('go/vet-printf.txt')?.line).toBe('vet/main.go:6:9: fmt.Sprintf format %d has arg name of wrong type string');
  });

  it('the go command: modules that need updating or a go.sum entry', () => {
    expect(recognised('go/mod-updates-needed.txt')).toEqual({ line: 'go: updates to go.mod needed; to update it:', tool: 'go mod' });
    expect(recognised('go/mod-missing-go-sum.txt')).toMatchObject({
      line: expect.stringContaining('missing go.sum entry for module providing package github.com/lib/pq'),
      tool: 'go mod',
    });
  });

  it("a driver's message inside a test's message is read from where the driver's words start", () => {
    expect(recognised('go/pq-undefined-table-orders.txt')).toEqual({ line: 'pq: relation "orders" does not exist', tool: 'postgres' });
    expect(recognised('go/pgx-undefined-table.txt')).toEqual({ line: 'ERROR: relation "orders" does not exist (SQLSTATE 42P01)', tool: 'postgres' });
    expect(recognised('go/mysql-1.7-table-missing.txt')).toEqual({ line: "Error 1146 (42S02): Table 'billing.invoices' doesn't exist", tool: 'mysql' });
    expect(recognised('go/sqlite-no-such-table.txt')).toEqual({ line: 'no such table: orders', tool: 'sqlite' });
  });

  it('only a failing test has a cause: a passing test logging, with no --- FAIL, names none', () => {
    expect(go.find(['=== RUN   TestA', '    a_test.go:6: listing users', '--- PASS: TestA (0.00s)', 'FAIL', 'FAIL\texample.com/a\t0.01s'])).toBeUndefined();
    // A passing test's log line that happens to use an error's words is still not the failing test's cause.
    const verbose = [
      '=== RUN   TestA',
      '    a_test.go:6: unexpected warm cache, ignored',
      '--- PASS: TestA (0.00s)',
      '=== RUN   TestB',
      '    b_test.go:9: status = 500, want 201',
      '--- FAIL: TestB (0.00s)',
      'FAIL',
    ];
    expect(go.find(verbose)?.line).toBe('status = 500, want 201');
    // The --- FAIL line scrolled out of a tail: a message that says what went wrong still tells.
    expect(go.find(['    order_test.go:7: got 500, want 201', 'FAIL'])?.line).toBe('got 500, want 201');
  });

  it('the same failure in two plans (other tables, tests, files) has one signature; different failures have different ones', () => {
    expectOneSignature('go/pq-undefined-table-orders.txt', 'go/pq-undefined-table-users.txt');
    expectOneSignature('go/pq-unique-orders.txt', 'go/pq-unique-users.txt');
    expectDistinctSignatures(
      'go/assert-order.txt',
      'go/panic-nil.txt',
      'go/build-undefined.txt',
      'go/vet-printf.txt',
      'go/mod-updates-needed.txt',
      'go/mod-missing-go-sum.txt',
      'go/pq-undefined-table-orders.txt',
      'go/pq-unique-users.txt',
      'go/pgx-undefined-table.txt',
      'go/mysql-table-missing.txt',
      'go/sqlite-no-such-table.txt',
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(go);
    expect(output('go/assert-order.txt').length).toBeGreaterThan(0);
  });
});
