/**
 * ledger: a Go HTTP service on Postgres (chi, pgx and lib/pq, golang/mock then mockery), and
 * the failures its work meets, printed as `go test` prints them.
 */
import type { Kind, ProjectDef, Subject } from './world.js';

const MODULE = 'example.com/ledger';

function goFile(s: Subject, imports: string[], body: string[]): string {
  return [`package ${s.pkg}`, '', 'import (', ...imports.map((i) => `\t${i}`), ')', '', ...body, ''].join('\n');
}

/** The plan's code: a type over its rows, and a handler. */
function code(s: Subject, imports: string[], fields: string[] = [], methods: string[] = []): string {
  return goFile(
    s,
    ['"encoding/json"', '"net/http"', ...imports],
    [
      `// ${s.Camel} ${s.verb}s ${s.plural}.`,
      `type ${s.Camel} struct {`,
      ...fields.map((f) => `\t${f}`),
      '}',
      '',
      `func (h *${s.Camel}) ServeHTTP(w http.ResponseWriter, r *http.Request) {`,
      `\tvar req ${s.Single}Request`,
      '\tif err := json.NewDecoder(r.Body).Decode(&req); err != nil {',
      '\t\thttp.Error(w, err.Error(), http.StatusUnprocessableEntity)',
      '\t\treturn',
      '\t}',
      '\tw.WriteHeader(http.StatusOK)',
      '}',
      ...methods,
    ],
  );
}

function test(s: Subject, imports: string[], body: string[], extra: string[] = []): string {
  return goFile(s, ['"testing"', ...imports], [...extra, `func Test${s.Camel}(t *testing.T) {`, ...body.map((l) => `\t${l}`), '}']);
}

function files(s: Subject, source: string, testFile: string, more: Record<string, string> = {}): Record<string, string> {
  const base = `${s.folder}/${s.verb}_${s.table}`;
  return { [`${base}.go`]: source, [`${base}_test.go`]: testFile, ...more };
}

const ms = (s: Subject) => String(s.millis).padStart(3, '0');

const goFail = (s: Subject, lines: string[], testSeconds = '0.01', packageSeconds = `0.${ms(s)}`) => [
  `--- FAIL: Test${s.Camel} (${testSeconds}s)`,
  ...lines.map((l) => `    ${s.verb}_${s.table}_test.go:${s.line}: ${l}`),
  'FAIL',
  `FAIL\t${MODULE}/${s.folder}\t${packageSeconds}s`,
  'FAIL',
];

const undefinedTable: Kind = {
  id: 'pg-undefined-table',
  role: 'two-wordings',
  story:
    'the package\'s tests run against an empty test database (lib/pq: `pq: relation "x" does not exist`; pgx: `ERROR: relation "x" does not exist (SQLSTATE 42P01)`) → apply the migrations in TestMain',
  reads: [
    { file: 'internal/db/pq.go', wording: 0 },
    { file: 'internal/db/pgxpool.go', wording: 1 },
  ],
  text: [
    'Store the {plural} in Postgres, in a new {table} table.',
    'Persist each {singular} in the database.',
    'Keep the {plural} in the SQL store, with a migration for the new table.',
    'Write every {singular} to PostgreSQL.',
  ],
  output: (s, wording) =>
    goFail(s, [
      `seed ${s.plural}: ${wording === 0 ? `pq: relation "${s.table}" does not exist` : `ERROR: relation "${s.table}" does not exist (SQLSTATE 42P01)`}`,
    ]),
  error: /relation\s+\S+\s+does not exist|SQLSTATE 42P01/i,
  fix: {
    paraphrases: [
      'Apply the migrations in TestMain (migrate.Up against the test database) before any test touches Postgres: the test database starts empty',
      'The test database has no tables until the migrations run: call migrate.Up from TestMain in the package tests',
      'Run the schema migrations from a TestMain before m.Run(); the tables exist only after migrate.Up',
    ],
    tokens: [['testmain', 'migrat']],
    names: [/TestMain/, /migrat/i],
  },
  files: (s, variant) => {
    const driver = ['"database/sql"'];
    const body = [
      `db := testdb.Open(t)`,
      `if _, err := db.Exec("INSERT INTO ${s.table} (id) VALUES (1)"); err != nil {`,
      `\tt.Fatalf("seed ${s.plural}: %v", err)`,
      '}',
    ];
    const main =
      variant === 'fixed'
        ? [
            'func TestMain(m *testing.M) {',
            '\tif err := migrate.Up(testdb.URL(), "../../migrations"); err != nil {',
            '\t\tlog.Fatalf("migrate: %v", err)',
            '\t}',
            '\tos.Exit(m.Run())',
            '}',
            '',
          ]
        : [];
    const imports = [`"${MODULE}/internal/db/testdb"`, ...(variant === 'fixed' ? ['"log"', '"os"', `"${MODULE}/internal/db/migrate"`] : [])];
    return files(s, code(s, driver, ['DB *sql.DB']), test(s, imports, body, main));
  },
};

const race: Kind = {
  id: 'go-data-race',
  role: 'command-only',
  story:
    "handlers write a shared map from concurrent requests; only `go test -race` in the plan's check sees it (`WARNING: DATA RACE`, `race detected during execution of test`) → guard it with a sync.Mutex",
  command: true,
  output: (s) => {
    const at = (fn: string, line: number, test = false) => [
      `  ${MODULE}/${s.folder}.${fn}()`,
      `      /home/ci/ledger/${s.folder}/${s.verb}_${s.table}${test ? '_test' : ''}.go:${line} +0x${(line * 4).toString(16)}`,
    ];
    return [
      '==================',
      'WARNING: DATA RACE',
      `Write at 0x00c0001${s.port.toString(16)} by goroutine 9:`,
      '  runtime.mapassign_faststr()',
      '      /usr/lib/go-1.19/src/runtime/map_faststr.go:203 +0x0',
      ...at(`(*${s.Camel}).record`, s.line),
      '',
      `Previous write at 0x00c0001${s.port.toString(16)} by goroutine 8:`,
      '  runtime.mapassign_faststr()',
      '      /usr/lib/go-1.19/src/runtime/map_faststr.go:203 +0x0',
      ...at(`(*${s.Camel}).record`, s.line),
      '',
      'Goroutine 9 (running) created at:',
      ...at(`Test${s.Camel}`, s.line + 9, true),
      '  testing.tRunner()',
      '      /usr/lib/go-1.19/src/testing/testing.go:1446 +0x216',
      '==================',
      `--- FAIL: Test${s.Camel} (0.00s)`,
      '    testing.go:1319: race detected during execution of test',
      'FAIL',
      `FAIL\t${MODULE}/${s.folder}\t0.${ms(s)}s`,
      'FAIL',
    ];
  },
  error: /DATA RACE|race detected during execution/i,
  fix: {
    paraphrases: [
      'Guard the shared map with a sync.Mutex: the handler writes it from concurrent requests and go test -race fails on it',
      'Concurrent requests wrote the in-memory totals unguarded; lock them with a sync.Mutex in every method that touches them',
      "Protect the struct's map with a mutex (Lock/Unlock around every read and write): the race detector catches the concurrent writes",
    ],
    tokens: [['mutex']],
    names: [/mutex/i],
  },
  files: (s, variant) => {
    const fixed = variant === 'fixed';
    const record = ['', `func (h *${s.Camel}) record(key string) {`, ...(fixed ? ['\th.mu.Lock()', '\tdefer h.mu.Unlock()'] : []), '\th.seen[key]++', '}'];
    return files(
      s,
      code(s, fixed ? ['"sync"'] : [], [...(fixed ? ['mu   sync.Mutex'] : []), 'seen map[string]int'], record),
      test(
        s,
        ['"net/http/httptest"'],
        [`h := &${s.Camel}{seen: map[string]int{}}`, 'for i := 0; i < 4; i++ {', '\tgo h.record("a")', '}', '_ = httptest.NewRecorder()'],
      ),
    );
  },
};

const upstream: Kind = {
  id: 'upstream-deadline',
  role: 'counter-intuitive',
  story:
    'calls to an upstream service time out (`context deadline exceeded (Client.Timeout exceeded while awaiting headers)`) because response bodies are never closed and the client runs out of connections; raising the timeout does not help → defer resp.Body.Close()',
  reads: [{ file: 'internal/platform/upstream/client.go', wording: 0 }],
  text: [
    'Enrich each {singular} with data from the upstream accounts service.',
    'Fetch the {plural} rates from the pricing service over HTTP.',
    "Look every {singular} up in the partner's risk API before answering.",
    'Call the FX service for each {singular}.',
  ],
  output: (s) =>
    goFail(
      s,
      [`enrich ${s.singular} 3: Get "http://127.0.0.1:${s.port}/v1/${s.table}/3": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`],
      '10.00',
      `10.${ms(s)}`,
    ),
  error: /context deadline exceeded|Client\.Timeout exceeded/i,
  fix: {
    paraphrases: [
      'Close each upstream response body (defer resp.Body.Close()): unclosed bodies kept every connection of the client busy, so later calls hit the deadline',
      'The client ran out of connections because response bodies were never closed; defer resp.Body.Close() after each upstream call',
      'Drain and close the response (io.Copy(io.Discard, resp.Body); resp.Body.Close()) after every call to the upstream service: a longer timeout only waits longer',
    ],
    tokens: [['body.close']],
    names: [/Body\.Close/],
  },
  obvious: {
    said: 'Raised the upstream client timeout from 10s to 30s: the test server may just be slow under load.',
    paraphrases: ['Raise the upstream http.Client Timeout to 30s'],
    tokens: [
      ['timeout', '30s'],
      ['raise', 'timeout'],
      ['increase', 'timeout'],
    ],
    names: [/(rais|increas|bump|longer)\w*[^.]{0,40}timeout|timeout[^.]{0,20}30\s?s/i],
  },
  files: (s, variant) => {
    const timeout = variant === 'plain' ? '10' : '30';
    const call = [
      '',
      `func (h *${s.Camel}) enrich(ctx context.Context, id string) error {`,
      `\treq, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.Base+"/v1/${s.table}/"+id, nil)`,
      '\tresp, err := h.Client.Do(req)',
      '\tif err != nil {',
      '\t\treturn err',
      '\t}',
      ...(variant === 'fixed' ? ['\tdefer resp.Body.Close()', '\t_, _ = io.Copy(io.Discard, resp.Body)'] : []),
      '\treturn nil',
      '}',
      '',
      `func New${s.Camel}(base string) *${s.Camel} {`,
      `\treturn &${s.Camel}{Base: base, Client: &http.Client{Timeout: ${timeout} * time.Second}}`,
      '}',
    ];
    const imports = ['"context"', '"time"', ...(variant === 'fixed' ? ['"io"'] : [])];
    return files(
      s,
      code(s, imports, ['Base   string', 'Client *http.Client'], call),
      test(
        s,
        ['"net/http/httptest"'],
        [
          `srv := httptest.NewServer(upstreamStub())`,
          'defer srv.Close()',
          `h := New${s.Camel}(srv.URL)`,
          'for i := 0; i < 20; i++ {',
          '\tif err := h.enrich(t.Context(), "3"); err != nil {',
          `\t\tt.Fatalf("enrich ${s.singular} 3: %v", err)`,
          '\t}',
          '}',
        ],
      ),
    );
  },
};

const mocks: Kind = {
  id: 'mocks-undefined',
  role: 'stale',
  story:
    'the tests use a store mock nobody generated (`undefined: mocks.NewMock…Store`) → go generate ./... (mockgen); from the 4th spec on the project generates its mocks with mockery (.mockery.yaml) and go generate makes none → run mockery',
  reads: [{ file: 'internal/testutil/mocks.go', wording: 0 }],
  text: [
    'Test the handler against a mocked {singular} store.',
    'Use a generated fake of the {singular} repository in the unit tests.',
    'Mock the repository interface in the handler tests.',
  ],
  output: (s) => [
    `# ${MODULE}/${s.folder} [${MODULE}/${s.folder}.test]`,
    `${s.folder}/${s.verb}_${s.table}_test.go:${s.line}:12: undefined: mocks.NewMock${s.Single}Store`,
    `FAIL\t${MODULE}/${s.folder} [build failed]`,
    'FAIL',
  ],
  error: /undefined: mocks\.NewMock/,
  old: {
    paraphrases: [
      'Generate the mock before the tests use it: add a //go:generate mockgen line for the store interface and run go generate ./...',
      "mocks.NewMock…Store is generated code: run go generate ./... (mockgen) after adding the interface's //go:generate directive",
      "Run go generate ./... so that mockgen writes the store's mock into internal/mocks",
    ],
    tokens: [['go generate']],
    names: [/go generate|mockgen/i],
  },
  fix: {
    paraphrases: [
      'Since the move to mockery, go generate makes no mocks: add the interface to .mockery.yaml and run mockery',
      "Run mockery (configured in .mockery.yaml) to create the store's mock; the //go:generate mockgen lines are gone",
      'Declare the store interface under packages in .mockery.yaml and run mockery to generate mocks.NewMock…Store',
    ],
    tokens: [['mockery']],
    names: [/mockery/i],
  },
  files: (s, variant, stale) => {
    const mockgen = (variant === 'fixed' && !stale) || (variant === 'futile' && stale);
    const mockery = variant === 'fixed' && stale;
    const header = mockgen
      ? ['// Code generated by MockGen. DO NOT EDIT.', `// Source: ${s.folder}/${s.verb}_${s.table}.go`]
      : mockery
        ? ['// Code generated by mockery v2.43.2. DO NOT EDIT.']
        : [];
    const source = code(
      s,
      [],
      ['Store Store'],
      [
        '',
        ...(mockgen ? [`//go:generate mockgen -source=${s.verb}_${s.table}.go -destination=../mocks/${s.table}_store.go -package=mocks`] : []),
        `type Store interface { Find(id string) (*${s.Single}, error) }`,
      ],
    );
    const more: Record<string, string> = header.length
      ? { [`${s.folder}/${s.verb}_${s.table}_mock_test.go`]: [...header, '', `package ${s.pkg}`, '', `// MockStore mocks Store.`, ''].join('\n') }
      : {};
    return files(
      s,
      source,
      test(s, [`"${MODULE}/internal/mocks"`], [`store := mocks.NewMock${s.Single}Store(t)`, `h := &${s.Camel}{Store: store}`, '_ = h']),
      more,
    );
  },
};

const vet: Kind = {
  id: 'go-vet-printf',
  role: 'one-off',
  story: 'go vet in go test: a %d verb given a string',
  output: (s) => [
    `# ${MODULE}/${s.folder}`,
    `${s.folder}/${s.verb}_${s.table}.go:${s.line}:14: fmt.Sprintf format %d has arg id of wrong type string`,
    `FAIL\t${MODULE}/${s.folder} [build failed]`,
    'FAIL',
  ],
  error: /format %d has arg \S+ of wrong type/,
  fix: { paraphrases: ['Format the id with %s: it is a string, and go vet fails the test build on the %d'], tokens: [['%s', 'string']], names: [/%s/] },
  files: (s, variant) =>
    files(
      s,
      code(s, ['"fmt"'], [], ['', `func label(id string) string { return fmt.Sprintf("${s.singular} %${variant === 'fixed' ? 's' : 'd'}", id) }`]),
      test(s, [], ['_ = label("a")']),
    ),
};

const nilMap: Kind = {
  id: 'go-nil-map',
  role: 'one-off',
  story: 'a totals map used before it was made',
  output: (s) => [
    `--- FAIL: Test${s.Camel} (0.00s)`,
    'panic: assignment to entry in nil map [recovered]',
    '\tpanic: assignment to entry in nil map',
    '',
    'goroutine 7 [running]:',
    'testing.tRunner.func1.2({0x6c2e40, 0x7a5b10})',
    '\t/usr/lib/go-1.19/src/testing/testing.go:1396 +0x24e',
    `${MODULE}/${s.folder}.(*${s.Camel}).add(...)`,
    `\t/home/ci/ledger/${s.folder}/${s.verb}_${s.table}.go:${s.line} +0x5d`,
    `FAIL\t${MODULE}/${s.folder}\t0.${ms(s)}s`,
    'FAIL',
  ],
  error: /assignment to entry in nil map/,
  fix: {
    paraphrases: ['Make the totals map in the constructor (make(map[string]int64)) before add writes to it'],
    tokens: [['make(map']],
    names: [/make\(map/],
  },
  files: (s, variant) =>
    files(
      s,
      code(
        s,
        [],
        ['totals map[string]int64'],
        ['', `func New${s.Camel}() *${s.Camel} { return &${s.Camel}{${variant === 'fixed' ? 'totals: make(map[string]int64)' : ''}} }`],
      ),
      test(s, [], [`_ = New${s.Camel}()`]),
    ),
};

const goSum: Kind = {
  id: 'go-sum-missing',
  role: 'one-off',
  story: 'a new dependency without its go.sum entry',
  output: (s) => [
    `${s.folder}/${s.verb}_${s.table}.go:9:2: missing go.sum entry for module providing package github.com/shopspring/decimal (imported by ${MODULE}/${s.folder}); to add:`,
    `\tgo get ${MODULE}/${s.folder}`,
    `FAIL\t${MODULE}/${s.folder} [setup failed]`,
    'FAIL',
  ],
  error: /missing go\.sum entry/,
  fix: { paraphrases: ['Run go mod tidy after adding github.com/shopspring/decimal so go.sum lists it'], tokens: [['go mod tidy']], names: [/go mod tidy/] },
  files: (s) => files(s, code(s, ['"github.com/shopspring/decimal"'], ['Rate decimal.Decimal']), test(s, [], ['_ = 1'])),
};

const GO_TOOL = `#!/bin/sh
# A stand-in for go on the checks' PATH: \`go test [flags] ./pkg/...\` passes, as go prints it.
pkg=.
for a in "$@"; do case "$a" in ./*) pkg=\${a#./}; pkg=\${pkg%/...} ;; esac; done
printf 'ok  \\t${MODULE}/%s\\t0.%03ds\\n' "$pkg" $(( $$ % 900 + 40 ))
`;

export const GO: ProjectDef = {
  key: 'ledger',
  name: 'ledger (Go HTTP service on Postgres)',
  ecosystem: 'Go',
  prefix: 'LED',
  folders: [
    'internal/billing',
    'internal/accounts',
    'internal/payouts',
    'internal/journal',
    'internal/invoices',
    'internal/merchants',
    'internal/reports',
    'internal/webhooks',
  ],
  things: [
    ['refunds', 'refund'],
    ['invoices', 'invoice'],
    ['payouts', 'payout'],
    ['transfers', 'transfer'],
    ['statements', 'statement'],
    ['disputes', 'dispute'],
    ['fees', 'fee'],
    ['holds', 'hold'],
    ['balances', 'balance'],
    ['settlements', 'settlement'],
    ['chargebacks', 'chargeback'],
    ['receipts', 'receipt'],
    ['credit_notes', 'credit note'],
    ['adjustments', 'adjustment'],
    ['tax_rates', 'tax rate'],
    ['journal_entries', 'journal entry'],
    ['mandates', 'mandate'],
    ['reversals', 'reversal'],
  ],
  verbs: ['create', 'list', 'export', 'reconcile', 'archive', 'approve', 'import', 'summarise', 'void', 'search'],
  titles: [
    '{Verb} {plural}',
    '{Verb} {plural} endpoint',
    '{Verb} {plural} for the dashboard',
    '{Verb} {plural} by merchant',
    '{Verb} {plural} in batches',
    'Handler to {verb} {plural}',
  ],
  generic: [
    'Add the handler under /v1/{table} and wire it into the router.',
    'Validate the request body and answer 422 with the field errors.',
    'Return 404 for an unknown id.',
    'Cover the happy path and the error cases with table-driven tests.',
    'Log each request with its request id.',
    'Keep the JSON field names in snake_case, as the other handlers do.',
    'Amounts are integer minor units, never floats.',
    'Page the response with a cursor, 50 {plural} at a time.',
    'Only an admin token may {verb} {plural}; answer 403 otherwise.',
  ],
  commonReads: ['internal/platform/httpx/router.go', 'internal/platform/config/config.go', 'internal/platform/logging/logging.go', 'internal/money/amount.go'],
  base: {
    'go.mod': `module ${MODULE}\n\ngo 1.22\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.12\n\tgithub.com/golang/mock v1.6.0\n\tgithub.com/jackc/pgx/v5 v5.5.5\n\tgithub.com/kelseyhightower/envconfig v1.4.0\n\tgithub.com/lib/pq v1.10.9\n\tgo.uber.org/zap v1.27.0\n)\n`,
    'README.md': '# ledger\n\nThe ledger service: accounts, money movement and reports over HTTP, on Postgres.\n\n    go test ./...\n',
    'cmd/ledger/main.go':
      'package main\n\nimport (\n\t"log"\n\t"net/http"\n\n\t"example.com/ledger/internal/platform/httpx"\n)\n\nfunc main() { log.Fatal(http.ListenAndServe(":8080", httpx.Router())) }\n',
    'internal/db/pq.go':
      'package db\n\nimport (\n\t"database/sql"\n\n\t_ "github.com/lib/pq"\n)\n\n// OpenPQ opens the ledger database through lib/pq (the reporting side).\nfunc OpenPQ(url string) (*sql.DB, error) { return sql.Open("postgres", url) }\n',
    'internal/db/pgxpool.go':
      'package db\n\nimport (\n\t"context"\n\n\t"github.com/jackc/pgx/v5/pgxpool"\n)\n\n// Pool opens the ledger database through pgx (the transactional side).\nfunc Pool(ctx context.Context, url string) (*pgxpool.Pool, error) { return pgxpool.New(ctx, url) }\n',
    'internal/db/migrate/migrate.go': 'package migrate\n\n// Up applies migrations/*.up.sql in order.\nfunc Up(url, dir string) error { return nil }\n',
    'internal/db/testdb/testdb.go':
      'package testdb\n\nimport (\n\t"database/sql"\n\t"testing"\n)\n\n// Open connects to the test database ($TEST_DATABASE_URL), an empty one per CI job.\nfunc Open(t *testing.T) *sql.DB { t.Helper(); return nil }\n\nfunc URL() string { return "" }\n',
    'internal/platform/upstream/client.go':
      'package upstream\n\nimport (\n\t"net/http"\n\t"time"\n)\n\n// Client calls the services upstream of the ledger (accounts, pricing, risk, FX).\nfunc Client() *http.Client { return &http.Client{Timeout: 10 * time.Second} }\n',
    'internal/testutil/mocks.go':
      'package testutil\n\nimport (\n\t"github.com/golang/mock/gomock"\n)\n\n// Controller for the generated mocks in internal/mocks (//go:generate mockgen next to each interface).\nfunc Controller(t gomock.TestReporter) *gomock.Controller { return gomock.NewController(t) }\n',
    'internal/platform/httpx/router.go':
      'package httpx\n\nimport (\n\t"net/http"\n\n\t"github.com/go-chi/chi/v5"\n)\n\nfunc Router() http.Handler { return chi.NewRouter() }\n',
    'internal/platform/config/config.go':
      'package config\n\nimport "github.com/kelseyhightower/envconfig"\n\ntype Config struct{ Port int `default:"8080"` }\n\nfunc Load() (c Config, err error) { err = envconfig.Process("ledger", &c); return }\n',
    'internal/platform/logging/logging.go': 'package logging\n\nimport "go.uber.org/zap"\n\nfunc New() *zap.Logger { l, _ := zap.NewProduction(); return l }\n',
    'internal/money/amount.go': 'package money\n\n// Amount is in minor units.\ntype Amount int64\n',
    'migrations/0001_init.up.sql': 'CREATE TABLE accounts (id bigserial PRIMARY KEY);\n',
  },
  upgrade: {
    before: 3,
    message: 'Move the mocks from golang/mock (archived) to mockery v2: .mockery.yaml, testify mocks',
    files: {
      'go.mod': `module ${MODULE}\n\ngo 1.22\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.12\n\tgithub.com/jackc/pgx/v5 v5.5.5\n\tgithub.com/kelseyhightower/envconfig v1.4.0\n\tgithub.com/lib/pq v1.10.9\n\tgithub.com/stretchr/testify v1.9.0\n\tgo.uber.org/zap v1.27.0\n)\n`,
      '.mockery.yaml':
        'with-expecter: true\ndir: internal/mocks\noutpkg: mocks\npackages:\n  example.com/ledger/internal/accounts:\n    interfaces:\n      Store:\n',
      'internal/testutil/mocks.go':
        'package testutil\n\nimport (\n\t"github.com/stretchr/testify/mock"\n)\n\n// Mocks are generated by mockery from .mockery.yaml into internal/mocks.\nvar Anything = mock.Anything\n',
    },
  },
  kinds: [undefinedTable, race, upstream, mocks],
  oneOffs: [vet, nilMap, goSum],
  paths: (s) => ({ modified: [`${s.folder}/${s.verb}_${s.table}*.go`], main: `${s.folder}/${s.verb}_${s.table}.go` }),
  check: (s, revealing) => `go test ${revealing ? '-race ' : ''}./${s.folder}/...`,
  pass: (s) => [`ok  \t${MODULE}/${s.folder}\t0.${String(s.millis + 100).padStart(3, '0')}s`],
  cleanFiles: (s) => files(s, code(s, []), test(s, ['"net/http/httptest"'], [`h := &${s.Camel}{}`, 'rec := httptest.NewRecorder()', '_ = h', '_ = rec'])),
  tools: { go: GO_TOOL },
};
