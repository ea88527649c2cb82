/**
 * relay: a TypeScript service on Node (fastify, pg and Prisma, msw in the tests, vitest), and
 * the failures its work meets, printed as vitest prints them.
 */
import type { Kind, ProjectDef, Subject } from './world.js';

const base = (s: Subject) => `${s.verb}-${s.table.replace(/_/g, '-')}`;
const fn = (s: Subject) => s.Camel.charAt(0).toLowerCase() + s.Camel.slice(1);
const sourcePath = (s: Subject) => `${s.folder}/${base(s)}.ts`;
const testPath = (s: Subject) => `${s.folder}/${base(s)}.test.ts`;
const describeName = (s: Subject) => `${s.verb} ${s.plural}`;

function files(s: Subject, source: string[], testFile: string[]): Record<string, string> {
  return { [sourcePath(s)]: `${source.join('\n')}\n`, [testPath(s)]: `${testFile.join('\n')}\n` };
}

/** A vitest run with one failing test: its error and stack, the serialized error, the tally. */
function vitestFail(s: Subject, it: string, error: string[], stack: string[], serialized?: string): string[] {
  const total = 2 + (s.millis % 3);
  return [
    '',
    ' RUN  v2.1.8 /home/ci/relay',
    '',
    ` ❯ ${testPath(s)} (${total} tests | 1 failed) ${s.millis + 20}ms`,
    `   × ${describeName(s)} > ${it} ${s.millis}ms`,
    `     → ${error[0]!.replace(/^\w*Error: /, '')}`,
    '',
    '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
    '',
    ` FAIL  ${testPath(s)} > ${describeName(s)} > ${it}`,
    ...error,
    ...stack.map((l) => ` ❯ ${l}`),
    '',
    '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯',
    ...(serialized ? [`Serialized Error: ${serialized}`] : []),
    '',
    '',
    ' Test Files  1 failed (1)',
    `      Tests  1 failed | ${total - 1} passed (${total})`,
    `   Start at  14:${String(s.millis % 60).padStart(2, '0')}:0${s.line % 10}`,
    `   Duration  ${s.millis * 7}ms (transform 41ms, setup 12ms, collect 96ms, tests ${s.millis}ms, environment 0ms, prepare 88ms)`,
    '',
  ];
}

const missingTable: Kind = {
  id: 'pg-missing-table',
  role: 'two-wordings',
  story:
    'the tests run against a test database nobody migrated (pg: `error: relation "x" does not exist`; Prisma: ``The table `public.X` does not exist in the current database.``) → migrate in vitest\'s globalSetup',
  reads: [
    { file: 'src/db/pool.ts', wording: 0 },
    { file: 'src/db/prisma.ts', wording: 1 },
  ],
  text: [
    'Store the {plural} in Postgres, in a new {table} table.',
    'Persist each {singular} in the database.',
    'Keep the {plural} in the SQL store (a new table and its migration).',
    'Write every {singular} to PostgreSQL.',
  ],
  output: (s, wording) =>
    wording === 0
      ? vitestFail(
          s,
          `stores a ${s.singular}`,
          [`error: relation "${s.table}" does not exist`],
          [
            'Parser.parseErrorMessage node_modules/pg-protocol/src/parser.ts:369:69',
            'Parser.handlePacket node_modules/pg-protocol/src/parser.ts:188:21',
            `${fn(s)} ${sourcePath(s)}:${s.line}:3`,
          ],
          "{ length: 107, severity: 'ERROR', code: '42P01', position: '13', file: 'parse_relation.c', line: '1392', routine: 'parserOpenTable' }",
        )
      : vitestFail(
          s,
          `stores a ${s.singular}`,
          [
            'PrismaClientKnownRequestError: ',
            `Invalid \`prisma.${s.Single.charAt(0).toLowerCase() + s.Single.slice(1)}.create()\` invocation in`,
            `/home/ci/relay/${sourcePath(s)}:${s.line}:32`,
            '',
            `→ ${s.line}   return prisma.${s.Single.charAt(0).toLowerCase() + s.Single.slice(1)}.create(`,
            `The table \`public.${s.Single}\` does not exist in the current database.`,
          ],
          ['$n.handleRequestError node_modules/@prisma/client/runtime/library.js:121:7749', `${fn(s)} ${sourcePath(s)}:${s.line}:3`],
          `{ code: 'P2021', clientVersion: '5.14.0', meta: { modelName: '${s.Single}', table: 'public.${s.Single}' } }`,
        ),
  error: /relation\s+\S+\s+does not exist|does not exist in the current database|42P01|P2021/,
  fix: {
    paraphrases: [
      "Run the migrations in vitest's globalSetup (migrate the test database before any test file runs): it starts empty",
      'The test database has no tables until it is migrated: add a globalSetup that runs the migrations (prisma migrate deploy / node-pg-migrate up)',
      'Migrate the test database once in a vitest globalSetup file, before the suites that query it',
    ],
    tokens: [['globalsetup', 'migrat']],
    names: [/globalSetup/, /migrat/i],
  },
  files: (s, variant) => ({
    ...files(
      s,
      [
        `import { pool } from '../db/pool.js';`,
        '',
        `export async function ${fn(s)}(id: string) {`,
        `  return pool.query('SELECT * FROM ${s.table} WHERE id = $1', [id]);`,
        '}',
      ],
      [
        "import { describe, expect, it } from 'vitest';",
        `import { ${fn(s)} } from './${base(s)}.js';`,
        '',
        `describe('${describeName(s)}', () => {`,
        `  it('stores a ${s.singular}', async () => {`,
        `    expect(await ${fn(s)}('1')).toBeDefined();`,
        '  });',
        '});',
      ],
    ),
    ...(variant === 'fixed'
      ? {
          [`${s.folder}/${base(s)}.setup.ts`]: [
            "import { migrate } from '../db/migrate.js';",
            '',
            '// vitest globalSetup: the test database starts empty.',
            'export async function setup() {',
            '  await migrate(process.env.TEST_DATABASE_URL!);',
            '}',
            '',
          ].join('\n'),
        }
      : {}),
  }),
};

const threads: Kind = {
  id: 'vitest-threads-chdir',
  role: 'command-only',
  story:
    "code under test calls process.chdir(); only the plan's check runs vitest with `--pool=threads`, where workers cannot (`TypeError: process.chdir() is not supported in workers`) → pass a cwd instead",
  command: true,
  output: (s) =>
    vitestFail(
      s,
      'writes the csv next to the report',
      ['TypeError: process.chdir() is not supported in workers'],
      [`${fn(s)} ${sourcePath(s)}:${s.line}:11`, `${testPath(s)}:9:5`],
      "{ code: 'ERR_WORKER_UNSUPPORTED_OPERATION' }",
    ),
  error: /process\.chdir\(\) is not supported in workers|ERR_WORKER_UNSUPPORTED_OPERATION/,
  fix: {
    paraphrases: [
      "Pass the directory as a cwd option instead of calling process.chdir(): vitest's threads pool runs the tests in workers, which cannot chdir",
      'Tests in worker threads cannot process.chdir(); resolve the paths against an explicit cwd argument',
      'Give the writer a cwd parameter (path.resolve(cwd, file)) rather than changing directory with process.chdir()',
    ],
    tokens: [['cwd', 'chdir']],
    names: [/\bcwd\b/],
  },
  files: (s, variant) =>
    files(
      s,
      [
        "import { writeFile } from 'node:fs/promises';",
        "import { resolve } from 'node:path';",
        '',
        variant === 'fixed' ? `export async function ${fn(s)}(rows: string[], cwd: string) {` : `export async function ${fn(s)}(rows: string[], dir: string) {`,
        ...(variant === 'fixed' ? [] : ['  process.chdir(dir);']),
        `  await writeFile(resolve(${variant === 'fixed' ? 'cwd, ' : ''}'${s.table}.csv'), rows.join('\\n'));`,
        '}',
      ],
      [
        "import { describe, it } from 'vitest';",
        `import { ${fn(s)} } from './${base(s)}.js';`,
        '',
        `describe('${describeName(s)}', () => {`,
        "  it('writes the csv next to the report', async () => {",
        `    await ${fn(s)}(['a'], '/tmp');`,
        '  });',
        '});',
      ],
    ),
};

const timers: Kind = {
  id: 'fake-timers-timeout',
  role: 'counter-intuitive',
  story:
    "code that waits with setTimeout (retry, backoff, polling) under the suite's fake timers never resumes (`Error: Test timed out in 5000ms.`); a longer testTimeout does not help → advance the clock with vi.runAllTimersAsync()",
  reads: [{ file: 'src/lib/retry.ts', wording: 0 }],
  text: [
    'Retry failed deliveries with exponential backoff.',
    'Poll the carrier every few seconds until the {singular} is confirmed.',
    'Wait and try again when the provider answers 429.',
  ],
  output: (s) =>
    vitestFail(
      s,
      `retries until the ${s.singular} is confirmed`,
      [
        'Error: Test timed out in 5000ms.',
        'If this is a long-running test, pass a timeout value as the last argument or configure it globally with "testTimeout".',
      ],
      [`${testPath(s)}:${s.line}:3`],
    ),
  error: /Test timed out in \d+ ?ms/,
  fix: {
    paraphrases: [
      "The suite runs with fake timers, so the backoff's setTimeout never fires: advance the clock with await vi.runAllTimersAsync() after starting the call",
      'vi.useFakeTimers() freezes the retry delay; drive it with await vi.advanceTimersByTimeAsync(...) instead of waiting for real time',
      "Call await vi.runAllTimersAsync() in the test so the polling loop's timers run: a longer timeout only waits longer",
    ],
    tokens: [['runalltimersasync'], ['advancetimersbytimeasync']],
    names: [/runAllTimersAsync|advanceTimersByTimeAsync/],
  },
  obvious: {
    said: 'Raised the test timeout to 30000 ms (testTimeout): the backoff may just need longer than 5 s.',
    paraphrases: ['Raise testTimeout to 30000 ms'],
    tokens: [['testtimeout'], ['timeout', '30000'], ['timeout', '30_000']],
    names: [/testTimeout|timeout[^.]{0,20}30[_,]?000/i],
  },
  files: (s, variant) =>
    files(
      s,
      [
        "import pRetry from 'p-retry';",
        '',
        `export async function ${fn(s)}(check: () => Promise<boolean>) {`,
        "  return pRetry(async () => { if (!(await check())) throw new Error('not yet'); }, { retries: 5, minTimeout: 1000 });",
        '}',
      ],
      [
        "import { describe, expect, it, vi } from 'vitest';",
        `import { ${fn(s)} } from './${base(s)}.js';`,
        '',
        `describe('${describeName(s)}', () => {`,
        `  it('retries until the ${s.singular} is confirmed', async () => {`,
        '    let calls = 0;',
        `    const done = ${fn(s)}(async () => ++calls > 2);`,
        ...(variant === 'fixed' ? ['    await vi.runAllTimersAsync();'] : []),
        '    await done;',
        '    expect(calls).toBe(3);',
        `  }${variant === 'plain' ? '' : ', { timeout: 30_000 }'});`,
        '});',
      ],
    ),
};

const msw: Kind = {
  id: 'payments-fetch-failed',
  role: 'stale',
  story:
    'the tests reach for the payments provider, which is not there (`TypeError: fetch failed` … `connect ECONNREFUSED`) → mock it with msw 1 (setupServer(rest.post(…))); from the 4th spec on the project is on msw 2, where rest is gone → http.post(…) returning HttpResponse.json(…)',
  reads: [{ file: 'src/lib/payments.ts', wording: 0 }],
  text: [
    "Charge the card through the payment provider's API.",
    'Refund through the payment gateway over HTTP.',
    "Ask the billing provider for each {singular}'s invoice.",
  ],
  output: (s) =>
    vitestFail(
      s,
      `charges the ${s.singular}`,
      ['TypeError: fetch failed'],
      [
        'fetch node_modules/undici/index.js:109:13',
        `${fn(s)} ${sourcePath(s)}:${s.line}:15`,
        '',
        'Caused by: Error: connect ECONNREFUSED 127.0.0.1:4010',
        'TCPConnectWrap.afterConnect [as oncomplete] node:net:1607:16',
      ],
      "{ errno: -111, code: 'ECONNREFUSED', syscall: 'connect', address: '127.0.0.1', port: 4010 }",
    ),
  error: /fetch failed|ECONNREFUSED/,
  old: {
    paraphrases: [
      'Intercept the provider in the tests with msw: setupServer(rest.post(`${PAYMENTS_URL}/charges`, …)), listen in beforeAll, close in afterAll',
      "The tests must not reach the real provider: mock it with msw's setupServer and rest.post handlers",
      'Add an msw server (setupServer(rest.post(...))) for the payments API before the tests run',
    ],
    tokens: [['rest.post'], ['rest.get']],
    names: [/rest\.(post|get)/],
  },
  fix: {
    paraphrases: [
      'msw 2 dropped rest: write the handlers as http.post(...) returning HttpResponse.json(...) in setupServer',
      'Since the msw 2 upgrade, use http.post and HttpResponse.json in the setupServer handlers (rest and res(ctx.json) are gone)',
      'Mock the payments API with msw 2 handlers: http.post(url, () => HttpResponse.json({ ... }))',
    ],
    tokens: [['httpresponse']],
    names: [/HttpResponse/],
  },
  files: (s, variant, stale) => {
    const v2 = variant === 'fixed' && stale;
    const v1 = (variant === 'fixed' && !stale) || (variant === 'futile' && stale);
    return files(
      s,
      ["import { charge } from '../lib/payments.js';", '', `export async function ${fn(s)}(amount: number) {`, '  return charge({ amount });', '}'],
      [
        "import { afterAll, beforeAll, describe, expect, it } from 'vitest';",
        ...(v2
          ? [
              "import { http, HttpResponse } from 'msw';",
              "import { setupServer } from 'msw/node';",
              "const server = setupServer(http.post('http://127.0.0.1:4010/charges', () => HttpResponse.json({ id: 'ch_1' })));",
            ]
          : []),
        ...(v1
          ? [
              "import { rest } from 'msw';",
              "import { setupServer } from 'msw/node';",
              "const server = setupServer(rest.post('http://127.0.0.1:4010/charges', (_req, res, ctx) => res(ctx.json({ id: 'ch_1' }))));",
            ]
          : []),
        `import { ${fn(s)} } from './${base(s)}.js';`,
        '',
        ...(v1 || v2 ? ['beforeAll(() => server.listen());', 'afterAll(() => server.close());', ''] : []),
        `describe('${describeName(s)}', () => {`,
        `  it('charges the ${s.singular}', async () => {`,
        `    expect(await ${fn(s)}(100)).toBeDefined();`,
        '  });',
        '});',
      ],
    );
  },
};

const tsc: Kind = {
  id: 'ts2322-amount',
  role: 'one-off',
  story: 'a string amount assigned to a number',
  output: (s) => [
    `${sourcePath(s)}(${s.line},9): error TS2322: Type 'string' is not assignable to type 'number'.`,
    '',
    `Found 1 error in ${sourcePath(s)}:${s.line}`,
    '',
  ],
  error: /TS2322/,
  fix: {
    paraphrases: ['Parse the amount from the query string with Number() before assigning it: the field is a number'],
    tokens: [['number()']],
    names: [/Number\(\)/],
  },
  files: (s, variant) =>
    files(
      s,
      [
        `export function ${fn(s)}(q: Record<string, string>) {`,
        `  const amount: number = ${variant === 'fixed' ? 'Number(q.amount)' : 'q.amount as never'};`,
        '  return amount;',
        '}',
      ],
      [],
    ),
};

const emptyJson: Kind = {
  id: 'json-end-of-input',
  role: 'one-off',
  story: 'an empty fixture file',
  output: (s) => vitestFail(s, 'parses the fixture', ['SyntaxError: Unexpected end of JSON input'], ['JSON.parse <anonymous>', `${testPath(s)}:${s.line}:23`]),
  error: /Unexpected end of JSON input/,
  fix: {
    paraphrases: ["The sample payload fixture was empty: fill fixtures with the provider's example body"],
    tokens: [['fixture', 'example body']],
    names: [/example body/],
  },
  files: (s) => files(s, [`export const ${fn(s)} = (text: string) => JSON.parse(text);`], []),
};

const enoent: Kind = {
  id: 'enoent-fixture',
  role: 'one-off',
  story: 'a fixture read relative to the wrong folder',
  output: (s) =>
    vitestFail(
      s,
      'loads the carriers',
      ["Error: ENOENT: no such file or directory, open 'fixtures/carriers.json'"],
      [`${fn(s)} ${sourcePath(s)}:${s.line}:20`],
      "{ errno: -2, code: 'ENOENT', syscall: 'open', path: 'fixtures/carriers.json' }",
    ),
  error: /ENOENT: no such file or directory, open 'fixtures\/carriers/,
  fix: {
    paraphrases: ['Resolve fixtures/carriers.json from import.meta.url, not from the working directory'],
    tokens: [['import.meta.url']],
    names: [/import\.meta\.url/],
  },
  files: (s) =>
    files(
      s,
      [
        "import { readFileSync } from 'node:fs';",
        `export const ${fn(s)} = () => JSON.parse(readFileSync(new URL('../../fixtures/carriers.json', import.meta.url), 'utf8'));`,
      ],
      [],
    ),
};

const VITEST_TOOL = `#!/bin/sh
# A stand-in for vitest on the checks' PATH: \`vitest run [flags] <file>\` passes, as vitest prints it.
file=""
for a in "$@"; do case "$a" in *.ts) file=$a ;; esac; done
n=$(( $$ % 4 + 2 ))
echo
echo ' RUN  v2.1.8 /home/ci/relay'
echo
echo " ✓ $file ($n tests) $(( $$ % 90 + 5 ))ms"
echo
echo ' Test Files  1 passed (1)'
echo "      Tests  $n passed ($n)"
echo "   Duration  $(( $$ % 400 + 300 ))ms"
`;

export const NODE: ProjectDef = {
  key: 'relay',
  name: 'relay (TypeScript service on Node: fastify, Postgres, vitest)',
  ecosystem: 'TypeScript/Node',
  prefix: 'RLY',
  folders: ['src/orders', 'src/billing', 'src/customers', 'src/shipping', 'src/catalog', 'src/notifications', 'src/reports', 'src/webhooks'],
  things: [
    ['orders', 'order'],
    ['shipments', 'shipment'],
    ['returns', 'return'],
    ['carts', 'cart'],
    ['parcels', 'parcel'],
    ['labels', 'label'],
    ['pickups', 'pickup'],
    ['addresses', 'address'],
    ['customers', 'customer'],
    ['carriers', 'carrier'],
    ['quotes', 'quote'],
    ['vouchers', 'voucher'],
    ['stock_levels', 'stock level'],
    ['price_rules', 'price rule'],
    ['deliveries', 'delivery'],
    ['manifests', 'manifest'],
    ['invoices', 'invoice'],
    ['subscriptions', 'subscription'],
  ],
  verbs: ['create', 'list', 'export', 'cancel', 'archive', 'import', 'sync', 'merge', 'track', 'schedule'],
  titles: [
    '{Verb} {plural}',
    '{Verb} {plural} route',
    '{Verb} {plural} for the back office',
    '{Verb} {plural} per customer',
    '{Verb} {plural} in bulk',
    'Route to {verb} {plural}',
  ],
  generic: [
    'Add the route under /api/{table} and register it with the app.',
    'Validate the body with the zod schema and answer 400 with the issues.',
    'Return 404 for an unknown id.',
    'Cover the happy path and the failures with vitest tests.',
    'Log one line per request with its id.',
    'Keep the response fields camelCase, as the other routes do.',
    'Amounts are integer cents.',
    'Only an admin may {verb} {plural}; answer 403 otherwise.',
    'Answer with the created resource and 201.',
  ],
  commonReads: ['src/http/app.ts', 'src/lib/logger.ts', 'src/config.ts', 'src/lib/money.ts'],
  base: {
    'package.json':
      JSON.stringify(
        {
          name: 'relay',
          type: 'module',
          scripts: { test: 'vitest run' },
          dependencies: {
            fastify: '^4.27.0',
            pg: '^8.11.5',
            '@prisma/client': '^5.14.0',
            pino: '^9.1.0',
            zod: '^3.23.8',
            'p-retry': '^6.2.0',
            undici: '^6.18.1',
          },
          devDependencies: { vitest: '^2.1.8', msw: '^1.3.3', typescript: '^5.4.5' },
        },
        null,
        2,
      ) + '\n',
    'tsconfig.json': '{ "compilerOptions": { "module": "NodeNext", "strict": true, "outDir": "dist" } }\n',
    'vitest.config.ts': "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({ test: { setupFiles: ['test/setup.ts'] } });\n",
    'test/setup.ts':
      "import { vi } from 'vitest';\n\n// Every suite runs on a fake clock: dates in the fixtures stay what they say.\nvi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'Date'] });\n",
    'README.md': '# relay\n\nOrders, shipping and billing for the shop, over HTTP.\n\n    npx vitest run\n',
    'src/db/pool.ts': "import pg from 'pg';\n\nexport const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });\n",
    'src/db/prisma.ts': "import { PrismaClient } from '@prisma/client';\n\nexport const prisma = new PrismaClient();\n",
    'src/db/migrate.ts': 'export async function migrate(_url: string): Promise<void> {}\n',
    'src/lib/retry.ts': "import pRetry from 'p-retry';\n\nexport const withRetry = <T>(f: () => Promise<T>) => pRetry(f, { retries: 5, minTimeout: 1000 });\n",
    'src/lib/payments.ts':
      "import { fetch } from 'undici';\n\nconst PAYMENTS_URL = process.env.PAYMENTS_URL ?? 'http://127.0.0.1:4010';\n\nexport async function charge(body: { amount: number }) {\n  const res = await fetch(`${PAYMENTS_URL}/charges`, { method: 'POST', body: JSON.stringify(body) });\n  return res.json();\n}\n",
    'src/http/app.ts': "import Fastify from 'fastify';\n\nexport const app = Fastify({ logger: true });\n",
    'src/lib/logger.ts': "import pino from 'pino';\n\nexport const logger = pino();\n",
    'src/config.ts': "import { z } from 'zod';\n\nexport const config = z.object({ PORT: z.coerce.number().default(3000) }).parse(process.env);\n",
    'src/lib/money.ts': 'export type Cents = number;\n',
  },
  upgrade: {
    before: 3,
    message: 'Upgrade msw 1.3 → 2.4 (handlers are http.* returning HttpResponse; rest is gone)',
    files: {},
  },
  kinds: [missingTable, threads, timers, msw],
  oneOffs: [tsc, emptyJson, enoent],
  paths: (s) => ({ modified: [sourcePath(s), testPath(s), `${s.folder}/${base(s)}.setup.ts`], main: sourcePath(s) }),
  check: (s, revealing) => `vitest run ${revealing ? '--pool=threads ' : ''}${testPath(s)}`,
  pass: (s) => [
    '',
    ' RUN  v2.1.8 /home/ci/relay',
    '',
    ` ✓ ${testPath(s)} (3 tests) ${s.millis}ms`,
    '',
    ' Test Files  1 passed (1)',
    '      Tests  3 passed (3)',
    '',
  ],
  cleanFiles: (s) =>
    files(
      s,
      [`export async function ${fn(s)}(id: string) {`, '  return { id };', '}'],
      [
        "import { expect, it } from 'vitest';",
        `import { ${fn(s)} } from './${base(s)}.js';`,
        '',
        `it('${describeName(s)}', async () => {`,
        `  expect(await ${fn(s)}('1')).toEqual({ id: '1' });`,
        '});',
      ],
    ),
  tools: { vitest: VITEST_TOOL },
};
NODE.upgrade.files['package.json'] = NODE.base['package.json']!.replace('"msw": "^1.3.3"', '"msw": "^2.4.9"');
