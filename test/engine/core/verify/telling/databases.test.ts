import { describe, expect, it } from 'vitest';
import { databases } from '../../../../../app/engine/core/verify/telling/databases.js';
import { recognisedError } from '../../../../../app/engine/core/verify/telling-line.js';
import { failureSignature } from '../../../../../app/engine/knowledge/signals/signature.js';
import { expectDistinctSignatures, expectOneSignature, expectReturnsOnHostileInput, recognised, signature } from './tool-output.js';

/** Database drivers, on the real messages of Postgres 15 and MariaDB 10.11 through their drivers (MongoDB's written from its drivers' source). */
describe('databases', () => {
  it("the driver's message from where it starts, whichever runner printed it", () => {
    expect(recognised('go/pq-unique-users.txt')).toEqual({ line: 'pq: duplicate key value violates unique constraint "users_email_key"', tool: 'postgres' });
    expect(recognised('postgres-psql/undefined-table.txt')).toEqual({ line: 'ERROR:  relation "orders" does not exist', tool: 'postgres' });
    expect(recognised('node-pg/pg-undefined-table-unhandled.txt')).toEqual({ line: 'error: relation "invoices" does not exist', tool: 'postgres' });
    expect(recognised('go/mysql-table-missing.txt')).toEqual({ line: "Error 1146: Table 'shop.orders' doesn't exist", tool: 'mysql' });
    expect(recognised('mongodb/node-e11000-users.txt')).toMatchObject({
      line: expect.stringMatching(/^MongoServerError: E11000 duplicate key error collection: shop\.users/),
      tool: 'mongodb',
    });
    expect(recognised('mongodb/pymongo-e11000-orders.txt')?.tool).toBe('mongodb');
  });

  it("a database's words elsewhere than at the start of a message are not its error", () => {
    // pytest shows a frame's variables: PyMySQL's raw packet holds the message too.
    expect(databases.find(["data = b\"\\xffz\\x04#42S02Table 'shop.orders' doesn't exist\""])).toBeUndefined();
    expect(databases.find(['    cur.execute("SELECT * FROM orders")  # relation "orders" does not exist yet'])).toBeUndefined();
  });

  it('the same failure in two plans (other tables, constraints, collections) has one signature', () => {
    expectOneSignature('go/pq-undefined-table-orders.txt', 'go/pq-undefined-table-users.txt');
    expectOneSignature('go/pq-unique-orders.txt', 'go/pq-unique-users.txt');
    expectOneSignature('pytest/psycopg2-undefined-table-orders.txt', 'pytest/psycopg2-undefined-table-users.txt');
    expectOneSignature('jest/pg-undefined-table.txt', 'node-pg/pg-undefined-table-unhandled.txt');
    expect(failureSignature(databases.find(["    invoice_test.go:9: insert: Error 1146 (42S02): Table 'shop.users' doesn't exist"])?.line)).toBe(
      signature('go/mysql-1.7-table-missing.txt'),
    );
    expect(
      failureSignature(
        databases.find(['MongoServerError: E11000 duplicate key error collection: billing.invoices index: ref_1 dup key: { ref: "B-7" }'])?.line,
      ),
    ).toBe(signature('mongodb/node-e11000-users.txt'));
    expect(failureSignature(databases.find(['pq: relation "invoices" does not exist'])?.line)).toBe('pq: relation "<name>" does not exist');
  });

  it('keeps what tells two kinds apart: the driver, the message, the SQLSTATE, the error number', () => {
    expect(signature('go/pgx-undefined-table.txt')).toBe('ERROR: relation "<name>" does not exist (SQLSTATE 42P01)');
    expect(signature('go/mysql-1.7-table-missing.txt')).toBe("Error 1146 (42S02): Table '<name>' doesn't exist");
    expect(failureSignature('ERROR: duplicate key value violates unique constraint "users_email_key" (SQLSTATE 23505)')).toBe(
      'ERROR: duplicate key value violates unique constraint "<name>" (SQLSTATE 23505)',
    );
    expectDistinctSignatures(
      'go/pq-undefined-table-orders.txt',
      'go/pq-unique-users.txt',
      'go/pgx-undefined-table.txt',
      'postgres-psql/undefined-table.txt',
      'postgres-psql/unique-violation.txt',
      'pytest/psycopg2-undefined-table-orders.txt',
      'pytest/psycopg2-unique-users.txt',
      'python/traceback-duplicate-column.txt',
      'go/mysql-table-missing.txt',
      'go/mysql-1.7-table-missing.txt',
      'pytest/pymysql-table-missing.txt',
      'go/sqlite-no-such-table.txt',
      'pytest/sqlite-no-such-table.txt',
      'mongodb/node-e11000-users.txt',
      'node-pg/pg-no-user-name.txt',
      'dotnet/npgsql-undefined-table.txt',
    );
    expect(failureSignature("Error 1062 (23000): Duplicate entry 'a@b.c' for key 'users.email'")).not.toBe(
      failureSignature("Error 1146 (42S02): Table 'shop.x' doesn't exist"),
    );
  });

  it('returns on a 100 kB hostile line', () => {
    expectReturnsOnHostileInput(databases);
  });
});

describe('Prisma', () => {
  it("reads the message below the client's class and invocation frame, and one signature for every model", () => {
    const out = (model: string) => [
      ' FAIL  test/carts.test.ts > carts > stores a cart',
      'PrismaClientKnownRequestError: ',
      `Invalid \`prisma.${model.toLowerCase()}.create()\` invocation in`,
      '/home/ci/relay/src/routes/carts.ts:71:32',
      '',
      `→ 71   return prisma.${model.toLowerCase()}.create(`,
      `The table \`public.${model}\` does not exist in the current database.`,
      ' ❯ $n.handleRequestError node_modules/@prisma/client/runtime/library.js:121:7749',
    ];
    expect(recognisedError(out('Cart'))).toEqual({ line: 'The table `public.Cart` does not exist in the current database.', tool: 'prisma' });
    expect(failureSignature(recognisedError(out('Cart'))!.line)).toBe(failureSignature(recognisedError(out('Invoice'))!.line));
  });
});
