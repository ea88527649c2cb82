import { describe, expect, it } from 'vitest';
import { failureSignature } from '../../../../app/engine/knowledge/signals/signature.js';

/** A failure's signature (knowledge/signals/signature.ts): what varies masked, the error kept. */
describe('failure signatures', () => {
  it('masks numbers, hex, ids, dates, temporary and absolute paths and ports, and keeps the error class and message', () => {
    expect(failureSignature('Error: SQLITE_BUSY: database is locked (/tmp/vitest-8a1f/db.sqlite, pid 4127)')).toBe('Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)');
    expect(failureSignature('Error: listen EADDRINUSE: address already in use 127.0.0.1:3000')).toBe('Error: listen EADDRINUSE: address already in use <n>:<port>');
    expect(failureSignature('at 2026-03-02T09:30:00Z commit 3f9c2a7d1e order 5b0e7c4e-8f1a-4c2b-9d3e-1a2b3c4d5e6f failed')).toBe('at <date> commit <hex> order <id> failed');
    expect(failureSignature("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/ci/app/dist/db/pool' imported from /home/ci/app/dist/a.js")).toBe(
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '<path>' imported from <path>",
    );
  });

  it('keeps numbers that are part of a name (TS2345, sqlite3) and relative paths, which say what failed', () => {
    expect(failureSignature("src/a.ts(3,7): error TS2345: Argument of type 'string' is not assignable to sqlite3 Database")).toBe(
      "src/a.ts(<n>): error TS2345: Argument of type 'string' is not assignable to sqlite3 Database",
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
