/**
 * tally: a Python service — Django models and views for billing, pandas jobs for the nightly
 * loads, boto3 for the archive — and the failures its work meets, printed as pytest prints them.
 */
import type { Kind, ProjectDef, Subject } from './world.js';

const base = (s: Subject) => `${s.verb}_${s.table}`;
const modulePath = (s: Subject) => `${s.folder}/${base(s)}.py`;
const testPath = (s: Subject) => `tests/${s.pkg}/test_${base(s)}.py`;
const seconds = (s: Subject) => `${(0.3 + s.millis / 100).toFixed(2)}s`;

function files(s: Subject, source: string[], testFile: string[]): Record<string, string> {
  return { [modulePath(s)]: `${source.join('\n')}\n`, [testPath(s)]: `${testFile.join('\n')}\n` };
}

function header(s: Subject, items: number, xdist: boolean): string[] {
  return [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.11.9, pytest-8.2.2, pluggy-1.5.0',
    'django: version: 5.0.6, settings: tally.settings.test (from ini)',
    'rootdir: /home/ci/tally',
    'configfile: pytest.ini',
    `plugins: django-4.8.0${xdist ? ', xdist-3.6.1' : ''}`,
    ...(xdist ? ['created: 4/4 workers', `4 workers [${items} items]`] : [`collected ${items} items`]),
    '',
  ];
}

/** A pytest run with one failing test: the traceback's last lines, the error lines (`E   `), the summary. */
function pytestFail(s: Subject, test: string, code: string[], errors: string[], where: string, options: { xdist?: boolean; summary?: string } = {}): string[] {
  const items = 3 + (s.millis % 3);
  const failed = Math.floor(s.millis / 10) % items;
  const dots = Array.from({ length: items }, (_, i) => (i === failed ? 'F' : '.')).join('');
  const title = ` ${test} `;
  const bar = Math.max(2, Math.floor((80 - title.length) / 2));
  const summary = options.summary ?? errors[0]!;
  const line = `FAILED ${testPath(s)}::${test} - ${summary}`;
  return [
    ...header(s, items, options.xdist === true),
    options.xdist ? `${dots.padEnd(73)}[100%]` : `${testPath(s)} ${dots.padEnd(72 - testPath(s).length)}[100%]`,
    '',
    '=================================== FAILURES ===================================',
    `${'_'.repeat(bar)}${title}${'_'.repeat(80 - bar - title.length)}`,
    ...(options.xdist ? ['[gw1] linux -- Python 3.11.9 /home/ci/tally/.venv/bin/python'] : []),
    '',
    ...code.map((l) => `    ${l}`),
    ...errors.map((e) => `E       ${e}`),
    '',
    `${where}`,
    '=========================== short test summary info ============================',
    line.length > 160 ? `${line.slice(0, 157)}...` : line,
    `========================= 1 failed, ${items - 1} passed in ${seconds(s)} =========================`,
  ];
}

const naive: Kind = {
  id: 'naive-datetime',
  role: 'two-wordings',
  story:
    "naive datetimes with USE_TZ on (`TypeError: can't compare offset-naive and offset-aware datetimes`; under filterwarnings=error, `RuntimeWarning: DateTimeField X.y received a naive datetime … while time zone support is active.`) → timezone.now()",
  reads: [
    { file: 'tally/core/dates.py', wording: 0 },
    { file: 'tally/core/models.py', wording: 1 },
  ],
  text: [
    'Each {singular} gets a due date a month out.',
    'Flag the {plural} whose expiry time has passed.',
    "Only take the {plural} created before today's cut-off time.",
    'Schedule each {singular} for the first business day of the next month.',
  ],
  output: (s, wording) =>
    wording === 0
      ? pytestFail(
          s,
          `test_${base(s)}_overdue`,
          [
            `def test_${base(s)}_overdue(${s.singular.replace(/ /g, '_')}):`,
            `>       assert is_overdue(${s.singular.replace(/ /g, '_')}, now=datetime.now())`,
            '',
          ],
          ["TypeError: can't compare offset-naive and offset-aware datetimes"],
          `${modulePath(s)}:${s.line}: TypeError`,
        )
      : pytestFail(
          s,
          `test_${base(s)}_due_dates`,
          [`def test_${base(s)}_due_dates(db):`, `>       ${s.Single}.objects.create(due_at=datetime(2026, 3, 1))`, ''],
          [`RuntimeWarning: DateTimeField ${s.Single}.due_at received a naive datetime (2026-03-01 00:00:00) while time zone support is active.`],
          `.venv/lib/python3.11/site-packages/django/db/models/fields/__init__.py:1595: RuntimeWarning`,
        ),
  error: /offset-naive and offset-aware|received a naive datetime/i,
  fix: {
    paraphrases: [
      'Use aware datetimes: django.utils.timezone.now() instead of datetime.now(), since USE_TZ is on',
      'datetime.now() is naive; build the times with timezone.now() (aware, UTC) so that they compare with what the database returns',
      'Replace the naive datetime.now() and datetime.utcnow() calls with timezone.now() from django.utils',
    ],
    tokens: [['timezone.now']],
    names: [/timezone\.now\(\)/],
  },
  files: (s, variant) => {
    const now = variant === 'fixed' ? 'timezone.now()' : 'datetime.now()';
    return files(
      s,
      [
        variant === 'fixed' ? 'from django.utils import timezone' : 'from datetime import datetime',
        'from dateutil.relativedelta import relativedelta',
        '',
        `def due_at(${s.singular.replace(/ /g, '_')}):`,
        `    return ${now} + relativedelta(months=1)`,
      ],
      [
        'from datetime import datetime',
        '',
        `from tally.${s.pkg}.${base(s)} import due_at`,
        '',
        `def test_${base(s)}_overdue():`,
        `    assert due_at(None) > ${now}`,
      ],
    );
  },
};

const xdist: Kind = {
  id: 'xdist-shared-dir',
  role: 'command-only',
  story:
    "tests write into one fixed /tmp directory; only the plan's check runs them in parallel workers (`pytest -p xdist -n 4`) → `FileExistsError: [Errno 17] File exists` → use the tmp_path fixture",
  command: true,
  output: (s) =>
    pytestFail(
      s,
      `test_${base(s)}_writes_the_file`,
      [
        `def test_${base(s)}_writes_the_file():`,
        `>       path = write_${s.table}(ROWS, directory=EXPORT_DIR)`,
        '',
        `${testPath(s)}:${s.line}: `,
        '_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ',
        `${modulePath(s)}:17: in write_${s.table}`,
        '    os.makedirs(directory)',
        '',
      ],
      [`FileExistsError: [Errno 17] File exists: '/tmp/tally-${s.table.replace(/_/g, '-')}'`],
      '<frozen os>:225: FileExistsError',
      { xdist: true },
    ),
  error: /FileExistsError: \[Errno 17\]/,
  fix: {
    paraphrases: [
      "Give each test its own directory with pytest's tmp_path fixture: under xdist the workers shared one fixed /tmp path",
      'Tests running in parallel workers (-n 4) collided on a fixed directory; write into tmp_path instead',
      'Use the tmp_path fixture rather than a hard-coded /tmp folder, so that parallel pytest workers never share files',
    ],
    tokens: [['tmp_path']],
    names: [/tmp_path/],
  },
  files: (s, variant) => {
    const fixed = variant === 'fixed';
    return files(
      s,
      [
        'import csv',
        'import os',
        '',
        `def write_${s.table}(rows, directory):`,
        '    os.makedirs(directory)',
        `    path = os.path.join(directory, "${s.table}.csv")`,
        '    with open(path, "w", newline="") as f:',
        '        csv.writer(f).writerows(rows)',
        '    return path',
      ],
      [
        `from tally.${s.pkg}.${base(s)} import write_${s.table}`,
        '',
        ...(fixed ? [] : [`EXPORT_DIR = "/tmp/tally-${s.table.replace(/_/g, '-')}"`, '']),
        `def test_${base(s)}_writes_the_file(${fixed ? 'tmp_path' : ''}):`,
        `    path = write_${s.table}([[1, 2]], directory=${fixed ? 'tmp_path / "out"' : 'EXPORT_DIR'})`,
        '    assert path.endswith(".csv")',
      ],
    );
  },
};

const memory: Kind = {
  id: 'pandas-memory',
  role: 'counter-intuitive',
  story:
    'a job loads a whole history into one frame (`numpy.core._exceptions._ArrayMemoryError: Unable to allocate … for an array`); a bigger memory limit does not help → read_csv(chunksize=…) and aggregate chunk by chunk',
  reads: [{ file: 'tally/ingest/frames.py', wording: 0 }],
  text: [
    'Load the full {singular} history, every row since 2015, from the nightly dump.',
    'Read the whole {plural} export (tens of millions of rows).',
    'Aggregate all {plural} from the warehouse extract.',
  ],
  output: (s) =>
    pytestFail(
      s,
      `test_${base(s)}_loads_history`,
      [
        `def test_${base(s)}_loads_history(dump):`,
        `>       totals = load_${s.table}(dump)`,
        '',
        `${testPath(s)}:${s.line}: `,
        '_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ',
        `${modulePath(s)}:11: in load_${s.table}`,
        '    frame = pd.read_csv(path)',
        '',
      ],
      [
        `numpy.core._exceptions._ArrayMemoryError: Unable to allocate ${(2 + s.millis / 40).toFixed(2)} GiB for an array with shape (${480 + s.millis}000000,) and data type int64`,
      ],
      '.venv/lib/python3.11/site-packages/pandas/io/parsers/c_parser_wrapper.py:234: MemoryError',
    ),
  error: /Unable to allocate [\d.]+ \w+ for an array|_ArrayMemoryError/,
  fix: {
    paraphrases: [
      'Stream the dump in chunks (pd.read_csv(path, chunksize=100_000)) and aggregate chunk by chunk: more memory only delays the failure',
      'Read the file with chunksize= and fold each chunk into the totals instead of loading every row at once',
      'pandas loaded the whole history into one frame; iterate over read_csv(..., chunksize=...) chunks instead',
    ],
    tokens: [['chunksize']],
    names: [/chunksize/],
  },
  obvious: {
    said: 'Raised the load job\'s memory limit to 8 GiB (MEMORY_LIMIT = "8g"): the dump may just be bigger than the default.',
    paraphrases: ["Raise the load job's memory limit to 8 GiB"],
    tokens: [['memory limit'], ['memory_limit']],
    names: [/memory[ _]limit/i],
  },
  files: (s, variant) =>
    files(
      s,
      [
        'import pandas as pd',
        '',
        ...(variant === 'plain' ? [] : ['MEMORY_LIMIT = "8g"', '']),
        `def load_${s.table}(path):`,
        ...(variant === 'fixed'
          ? [
              '    totals = None',
              '    for chunk in pd.read_csv(path, chunksize=100_000):',
              '        part = chunk.groupby("account").amount.sum()',
              '        totals = part if totals is None else totals.add(part, fill_value=0)',
              '    return totals',
            ]
          : ['    frame = pd.read_csv(path)', '    return frame.groupby("account").amount.sum()']),
      ],
      [`from tally.${s.pkg}.${base(s)} import load_${s.table}`, '', `def test_${base(s)}_loads_history(dump):`, `    assert load_${s.table}(dump) is not None`],
    ),
};

const moto: Kind = {
  id: 's3-no-credentials',
  role: 'stale',
  story:
    'tests reach the real S3 (`botocore.exceptions.NoCredentialsError: Unable to locate credentials`) → @mock_s3 (moto 4); from the 4th spec on the project is on moto 5, where mock_s3 is gone → @mock_aws',
  reads: [{ file: 'tally/storage/s3.py', wording: 0 }],
  text: [
    'Archive each {singular} as JSON in the S3 bucket.',
    'Upload the {plural} report to the object store.',
    'Keep a copy of every {singular} in the archive bucket.',
  ],
  output: (s) =>
    pytestFail(
      s,
      `test_${base(s)}_archives`,
      [
        `def test_${base(s)}_archives():`,
        `>       archive_${s.table}([{"id": 1}])`,
        '',
        `${testPath(s)}:${s.line}: `,
        '_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ',
        '.venv/lib/python3.11/site-packages/botocore/auth.py:418: in add_auth',
        '    raise NoCredentialsError()',
        '',
      ],
      ['botocore.exceptions.NoCredentialsError: Unable to locate credentials'],
      '.venv/lib/python3.11/site-packages/botocore/auth.py:418: NoCredentialsError',
    ),
  error: /NoCredentialsError|Unable to locate credentials/,
  old: {
    paraphrases: [
      'Decorate the test with @mock_s3 from moto so that boto3 talks to an in-memory S3 instead of AWS',
      "The tests must not reach AWS: wrap them in moto's mock_s3 and create the bucket first",
      "Use moto's @mock_s3 (and create the archive bucket in the test) so no credentials are needed",
    ],
    tokens: [['mock_s3']],
    names: [/mock_s3/],
  },
  fix: {
    paraphrases: [
      'moto 5 removed mock_s3: decorate the tests with @mock_aws (from moto import mock_aws) and create the bucket first',
      'Since the move to moto 5, wrap the tests in @mock_aws; mock_s3 no longer exists',
      "Use moto's @mock_aws decorator (moto 5 replaced the per-service mocks) so boto3 needs no credentials",
    ],
    tokens: [['mock_aws']],
    names: [/mock_aws/],
  },
  files: (s, variant, stale) => {
    const decorator = variant === 'plain' ? undefined : (variant === 'fixed') === stale ? 'mock_aws' : 'mock_s3';
    return files(
      s,
      [
        'import json',
        '',
        'import boto3',
        '',
        `def archive_${s.table}(rows):`,
        '    s3 = boto3.client("s3")',
        `    s3.put_object(Bucket="tally-archive", Key="${s.table}.json", Body=json.dumps(rows))`,
      ],
      [
        ...(decorator ? [`from moto import ${decorator}`, 'import boto3', ''] : []),
        `from tally.${s.pkg}.${base(s)} import archive_${s.table}`,
        '',
        ...(decorator ? [`@${decorator}`] : []),
        `def test_${base(s)}_archives():`,
        ...(decorator ? ['    boto3.client("s3").create_bucket(Bucket="tally-archive")'] : []),
        `    archive_${s.table}([{"id": 1}])`,
      ],
    );
  },
};

const keyError: Kind = {
  id: 'key-error-legacy',
  role: 'one-off',
  story: 'an optional column read as required',
  output: (s) =>
    pytestFail(
      s,
      `test_${base(s)}_maps_rows`,
      [`def test_${base(s)}_maps_rows():`, `>       assert to_row(LEGACY)["code"]`, ''],
      ["KeyError: 'legacy_code'"],
      `${modulePath(s)}:${s.line}: KeyError`,
    ),
  error: /KeyError: 'legacy_code'/,
  fix: {
    paraphrases: ['Read the optional legacy_code column with row.get("legacy_code"): old exports do not have it'],
    tokens: [['row.get']],
    names: [/\.get\(/],
  },
  files: (s, variant) =>
    files(
      s,
      ['def to_row(row):', `    return {"code": row${variant === 'fixed' ? '.get("legacy_code")' : '["legacy_code"]'}}`],
      [`from tally.${s.pkg}.${base(s)} import to_row`],
    ),
};

const jsonEmpty: Kind = {
  id: 'json-empty-body',
  role: 'one-off',
  story: 'a 204 answer parsed as JSON',
  output: (s) =>
    pytestFail(
      s,
      `test_${base(s)}_sync`,
      [`def test_${base(s)}_sync(partner):`, `>       assert sync_${s.table}(partner) == []`, ''],
      ['json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)'],
      '/usr/lib/python3.11/json/decoder.py:355: JSONDecodeError',
    ),
  error: /JSONDecodeError: Expecting value/,
  fix: { paraphrases: ['The partner answers 204 with an empty body: return [] before json.loads when there is no content'], tokens: [['204']], names: [/204/] },
  files: (s, variant) =>
    files(
      s,
      [
        'import json',
        '',
        `def sync_${s.table}(resp):`,
        ...(variant === 'fixed' ? ['    if resp.status_code == 204:', '        return []'] : []),
        '    return json.loads(resp.text)',
      ],
      [`from tally.${s.pkg}.${base(s)} import sync_${s.table}`],
    ),
};

const noYaml: Kind = {
  id: 'no-module-yaml',
  role: 'one-off',
  story: 'a new import without its requirement',
  output: (s) => [
    ...header(s, 0, false).slice(0, -2),
    'collected 0 items / 1 error',
    '',
    '==================================== ERRORS ====================================',
    `_____________ ERROR collecting ${testPath(s)} _____________`,
    `${testPath(s)}:1: in <module>`,
    `    from tally.${s.pkg}.${base(s)} import load_rules`,
    `${modulePath(s)}:1: in <module>`,
    '    import yaml',
    "E   ModuleNotFoundError: No module named 'yaml'",
    '=========================== short test summary info ============================',
    `ERROR ${testPath(s)}`,
    '!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!',
    `=============================== 1 error in ${seconds(s)} ===============================`,
  ],
  error: /No module named 'yaml'/,
  fix: { paraphrases: ['Add PyYAML to requirements.txt: the rules file loader imports yaml'], tokens: [['pyyaml']], names: [/PyYAML/i] },
  files: (s) =>
    files(s, ['import yaml', '', 'def load_rules(path):', '    return yaml.safe_load(open(path))'], [`from tally.${s.pkg}.${base(s)} import load_rules`]),
};

const PYTEST_TOOL = `#!/bin/sh
# A stand-in for pytest on the checks' PATH: the tests pass, as pytest prints it.
workers=""
for a in "$@"; do [ "$prev" = "-n" ] && workers=$a; prev=$a; done
n=$(( $$ % 4 + 3 ))
echo '============================= test session starts =============================='
echo 'platform linux -- Python 3.11.9, pytest-8.2.2, pluggy-1.5.0'
if [ -n "$workers" ]; then echo "created: $workers/$workers workers"; echo "$workers workers [$n items]"; else echo "collected $n items"; fi
echo
echo "$(printf '%*s' "$n" '' | tr ' ' '.') [100%]"
echo
echo "============================== $n passed in 0.$(( $$ % 80 + 10 ))s =============================="
`;

export const PYTHON: ProjectDef = {
  key: 'tally',
  name: 'tally (Python: Django billing service and pandas ETL)',
  ecosystem: 'Python',
  prefix: 'TAL',
  folders: ['tally/billing', 'tally/accounts', 'tally/reports', 'tally/ingest', 'tally/payouts', 'tally/catalog', 'tally/exports', 'tally/notifications'],
  things: [
    ['invoices', 'invoice'],
    ['payments', 'payment'],
    ['refunds', 'refund'],
    ['customers', 'customer'],
    ['subscriptions', 'subscription'],
    ['usage_records', 'usage record'],
    ['credits', 'credit'],
    ['plans', 'plan'],
    ['coupons', 'coupon'],
    ['statements', 'statement'],
    ['ledgers', 'ledger'],
    ['meters', 'meter'],
    ['dunning_notices', 'dunning notice'],
    ['tax_lines', 'tax line'],
    ['price_lists', 'price list'],
    ['payouts', 'payout'],
    ['contracts', 'contract'],
    ['quotes', 'quote'],
  ],
  verbs: ['create', 'list', 'export', 'reconcile', 'archive', 'import', 'summarise', 'merge', 'dedupe', 'rollup'],
  titles: [
    '{Verb} {plural}',
    '{Verb} {plural} view',
    '{Verb} {plural} for finance',
    '{Verb} {plural} per customer',
    'Job to {verb} {plural}',
    '{Verb} {plural} in the admin',
  ],
  generic: [
    'Expose it as a view under /api/{table}/ and add it to the URL conf.',
    'Validate the input with a serializer and answer 400 with the field errors.',
    'Return 404 for an unknown id.',
    'Cover the main path and the edge cases with pytest tests.',
    'Log one structured line per run with the counts.',
    'Keep the field names as the other serializers have them.',
    'Amounts are Decimal, never float.',
    'Only staff may {verb} {plural}; answer 403 otherwise.',
    'Write the result as CSV with a header row.',
  ],
  commonReads: ['tally/api/views.py', 'tally/core/logging.py', 'tally/core/money.py', 'tally/settings/base.py'],
  base: {
    'pyproject.toml': '[project]\nname = "tally"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n',
    'requirements.txt': 'Django==5.0.6\ndjangorestframework==3.15.1\npandas==2.2.2\nboto3==1.34.113\npython-dateutil==2.9.0\nstructlog==24.1.0\n',
    'requirements-dev.txt': 'pytest==8.2.2\npytest-django==4.8.0\npytest-xdist==3.6.1\nmoto[s3]==4.2.14\n',
    'pytest.ini': '[pytest]\nDJANGO_SETTINGS_MODULE = tally.settings.test\nfilterwarnings =\n    error::RuntimeWarning\n',
    'README.md': '# tally\n\nBilling for the platform: invoices, payments and the nightly loads.\n\n    pytest\n',
    'tally/__init__.py': '',
    'tally/settings/base.py': 'USE_TZ = True\nTIME_ZONE = "UTC"\nINSTALLED_APPS = ["tally.billing", "tally.accounts"]\n',
    'tally/core/dates.py':
      'from datetime import datetime, timedelta\n\nfrom dateutil.relativedelta import relativedelta\n\n\ndef next_month(day):\n    return day + relativedelta(months=1)\n',
    'tally/core/models.py':
      'from django.db import models\n\n\nclass Timestamped(models.Model):\n    created_at = models.DateTimeField()\n    due_at = models.DateTimeField(null=True)\n\n    class Meta:\n        abstract = True\n',
    'tally/ingest/frames.py':
      'import numpy as np\nimport pandas as pd\n\n\ndef amounts(frame: pd.DataFrame) -> np.ndarray:\n    return frame["amount"].to_numpy()\n',
    'tally/storage/s3.py': 'import boto3\n\nBUCKET = "tally-archive"\n\n\ndef client():\n    return boto3.client("s3")\n',
    'tally/api/views.py': 'from rest_framework import viewsets\n\n\nclass TallyViewSet(viewsets.ModelViewSet):\n    pass\n',
    'tally/core/logging.py': 'import structlog\n\nlog = structlog.get_logger()\n',
    'tally/core/money.py': 'from decimal import Decimal\n\nZERO = Decimal("0")\n',
    'tests/conftest.py': 'import pytest\n',
  },
  upgrade: {
    before: 3,
    message: 'Upgrade moto 4.2 → 5.0 (one mock_aws instead of a mock per service)',
    files: { 'requirements-dev.txt': 'pytest==8.2.2\npytest-django==4.8.0\npytest-xdist==3.6.1\nmoto[s3]==5.0.9\n' },
  },
  kinds: [naive, xdist, memory, moto],
  oneOffs: [keyError, jsonEmpty, noYaml],
  paths: (s) => ({ modified: [modulePath(s), testPath(s)], main: modulePath(s) }),
  check: (s, revealing) => `pytest ${revealing ? '-p xdist -n 4 ' : ''}${testPath(s)}`,
  pass: (s, revealing) => [
    ...header(s, 4, revealing),
    revealing ? `${'....'.padEnd(73)}[100%]` : `${testPath(s)} ....`,
    '',
    `============================== 4 passed in ${seconds(s)} ===============================`,
  ],
  cleanFiles: (s) =>
    files(
      s,
      [`def ${s.verb}_${s.table}(rows):`, '    return list(rows)'],
      [`from tally.${s.pkg}.${base(s)} import ${s.verb}_${s.table}`, '', `def test_${base(s)}():`, `    assert ${s.verb}_${s.table}([]) == []`],
    ),
  tools: { pytest: PYTEST_TOOL },
};
