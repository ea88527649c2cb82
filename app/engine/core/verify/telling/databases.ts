import { prepare, unframed, type Found, type Recogniser } from './recogniser.js';

/**
 * Database drivers: Postgres (lib/pq `pq: …`, pgx `ERROR: … (SQLSTATE 42P01)`, psql, node-postgres
 * `error: …`, psycopg2 `psycopg2.errors.UndefinedTable: …`, SQLAlchemy's wrapping, JDBC's
 * PSQLException, Npgsql), MySQL and MariaDB (`Error 1146 (42S02): …`, PyMySQL `(1146, "…")`,
 * node's `ER_…`), SQLite (`no such table: …`, `SQLITE_…`), MongoDB (`E11000 duplicate key
 * error …`) and Prisma's own (``The table `public.Cart` does not exist in the current database.``,
 * below its `PrismaClientKnownRequestError:` and `Invalid … invocation` frame). The line is the driver's message from where it starts: a test's location and the
 * caller's own wrapping (`store_test.go:22: query: pq: …` → `pq: …`) are left out, the exception
 * classes around it (`sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedTable) …`) kept.
 * A message must start the line (after its class): a database's words inside source code, a
 * variable's value or a SQL string are not its error.
 */

/** A test framework's location before the message: `store_test.go:22: `, `tests/test_x.py:17: `. */
const LOCATION = /^[\w./\\-]+\.\w{1,5}:\d+(?::\d+)?:? /;
/** The caller's wrapping: lowercase words and a colon (`query: `, `list invoices: `). */
const WRAP = /^([a-z][a-z0-9_ -]{0,40}): (?=\S)/;
/** Words that start a driver's message, never a wrapping. */
const NOT_WRAP = /^(?:pq|error|fatal|panic|sqlite3?|mysql|postgres(?:ql)?|mongo\w*)$/i;
/** An exception class before the message: `psycopg2.errors.UndefinedTable: `, `Npgsql.PostgresException : `, `PG::UndefinedTable: `, `error: `. */
const CLASS = /^(?:[A-Za-z_$][\w$]*(?:\.|::))*[A-Za-z_$][\w$]*(?: ?\[[\w-]+\])? ?: +/;
/** What may stand between a class and its message: SQLAlchemy's `(psycopg2.errors.X) `, Npgsql's `42P01: `. */
const INNER = /^(?:\((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*\) |[0-9A-Z]{5}: )/;

const POSTGRES_START = startOf([
  'pq: \\S',
  '(?:relation|table|column|database|role|schema|type|function|index|sequence|view|constraint|extension|operator|trigger) "[^"]*"(?: of relation "[^"]*")? (?:does not exist|already exists)',
  'duplicate key value violates unique constraint',
  '(?:insert or update on table "[^"]*" |update or delete on table "[^"]*" )?violates (?:foreign key|check|exclusion|not-null) constraint',
  'null value in column "[^"]*"',
  'syntax error at or near',
  'column (?:reference )?"[^"]*" (?:is of type|cannot be cast|specified more than once|is ambiguous)',
  'permission denied for',
  'password authentication failed',
  'no PostgreSQL user name specified',
  'deadlock detected',
  'could not serialize access',
  'value too long for type',
  'invalid input (?:syntax|value) for',
  'current transaction is aborted',
  'there is no unique or exclusion constraint',
  'operator does not exist',
  'function \\S+ does not exist',
]);
/** One pattern matching any of these at the start of a text. */
function startOf(alternatives: readonly string[]): RegExp {
  return new RegExp(`^(?:${alternatives.join('|')})`);
}

const SQLSTATE = /\(SQLSTATE [0-9A-Z]{5}\)/;
const MYSQL_START = startOf([
  'Error \\d{4}(?: \\([0-9A-Z]{5}\\))?: ',
  '\\(\\d{4}, ["\']',
  'ER_[A-Z_]+: ',
  "Table '[^']*' doesn't exist",
  "Unknown (?:column|database|table) '[^']*'",
  "Duplicate entry '[^']*' for key",
  'You have an error in your SQL syntax',
  'Access denied for user',
  'Cannot (?:add or update|delete or update) a (?:child|parent) row',
  'Data too long for column',
  'Deadlock found when trying',
  'Lock wait timeout exceeded',
  "Column '[^']*' cannot be null",
  "Field '[^']*' doesn't have a default value",
  "Can't connect to (?:local )?(?:MySQL|MariaDB) server",
]);
const SQLITE_START =
  /^(?:SQLITE_[A-Z_]+\b|no such (?:table|column|function|index|savepoint): |(?:UNIQUE|NOT NULL|CHECK|FOREIGN KEY|PRIMARY KEY) constraint failed|database is locked|table \S+ already exists|database disk image is malformed|attempt to write a readonly database|unable to open database file)/;
const MONGO_START = /^E11000 duplicate key error/;
/** Prisma's own messages, whatever the database under it (its P20xx errors): the line after its `Invalid … invocation` frame. */
const PRISMA_START =
  /^(?:The (?:table|column|database) `[^`]*` does not exist in the current database|Unique constraint failed on the (?:fields|constraint)|Foreign key constraint failed on the field|Can't reach database server at|Null constraint violation on the fields|The provided value for the column is too long|Transaction already closed|Timed out fetching a new connection from the connection pool)/;

/** Classes that are a driver's own, whatever their message. */
const CLASS_TOOL: readonly [RegExp, string][] = [
  [/^(?:psycopg2?|asyncpg|pg8000)\b|PSQLException|PostgresException|Npgsql|^PG::/, 'postgres'],
  [/^(?:pymysql|MySQLdb|mysql\.connector)\b|^Mysql2::/, 'mysql'],
  [/^sqlite3\.|^SqliteError|^SQLite3::/, 'sqlite'],
  [/^Mongo\w*Error|^pymongo\.|^Mongo::/, 'mongodb'],
];

function startTool(text: string): string | undefined {
  if (POSTGRES_START.test(text) || (/^(?:ERROR|FATAL|PANIC):/.test(text) && SQLSTATE.test(text))) return 'postgres';
  if (MYSQL_START.test(text)) return 'mysql';
  if (SQLITE_START.test(text)) return 'sqlite';
  if (MONGO_START.test(text)) return 'mongodb';
  if (PRISMA_START.test(text)) return 'prisma';
  return undefined;
}

/** The driver's message a line holds, from where it starts, and which database it is of. */
export function driverMessage(raw: string): { line: string; tool: string } | undefined {
  let text = unframed(raw).replace(LOCATION, '');
  for (let i = 0; i < 5; i++) {
    const wrap = WRAP.exec(text);
    if (wrap === null || NOT_WRAP.test(wrap[1]!) || startTool(text) !== undefined) break;
    text = text.slice(wrap[0].length);
  }
  // Up to three classes deep: `ActiveRecord::StatementInvalid: PG::UndefinedTable: ERROR:  relation …`.
  let rest = text;
  let classTool: string | undefined;
  for (let depth = 0; depth <= 3; depth++) {
    const tool = startTool(rest);
    if (tool !== undefined) return { line: text, tool };
    const cls = CLASS.exec(rest);
    if (cls === null) break;
    classTool ??= CLASS_TOOL.find(([re]) => re.test(cls[0]))?.[1];
    rest = rest.slice(cls[0].length);
    const inner = INNER.exec(rest);
    if (inner !== null) {
      classTool ??= CLASS_TOOL.find(([re]) => re.test(inner[0].slice(1)))?.[1];
      rest = rest.slice(inner[0].length);
    }
  }
  // A driver's class with a message of its own (`psycopg2.OperationalError: connection to server … failed`).
  if (classTool !== undefined && rest.trim() !== '' && rest !== text) return { line: text, tool: classTool };
  return undefined;
}

export const databases: Recogniser = {
  name: 'databases',
  find(output) {
    const lines = prepare(output);
    for (let at = 0; at < lines.length; at++) {
      const found = driverMessage(lines[at]!);
      if (found) return { at, ...found } satisfies Found;
    }
    return undefined;
  },
};
