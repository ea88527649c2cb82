import { describe, expect, it } from 'vitest';
import type { SignalRecord } from '../../../../app/engine/knowledge/signals/signal-record.js';
import { codeNames, fixChanged, fixEvidence, sameFix, statedFix } from '../../../../app/engine/knowledge/lessons/same-fix.js';

/** When two failures were put right by the same fix: what tells one cause in two wordings, and a fix that changed. */

function repair(said: string[], added: string[] = []): SignalRecord {
  return {
    file: `.harness/knowledge/signals/p/2026-04-01/${Math.random()}-repair.signal.md`,
    signal: {
      type: 'repair',
      severity: 'low',
      project: 'p',
      spec: 'SPC-001',
      plan: '01-01',
      timestamp: '2026-04-01T09:00:00Z',
      tags: [],
      metadata: { fix: { said, added: added.map((line) => ({ file: 'tests/test_x.py', line })) } },
    },
  };
}
const fix = (said: string[], added: string[] = []) => fixEvidence([repair(said, added)]);

describe('the same fix', () => {
  it('is the same when two agents name the same code, however they word the rest', () => {
    expect(
      sameFix(
        fix(['Apply the migrations in TestMain (migrate.Up against the test database)']),
        fix(['The tables exist only after migrate.Up: call it from TestMain']),
      ),
    ).toMatch(/^the same fix in other words \(both name/);
    // `django.utils.timezone.now()` and `timezone.now()` are one name.
    expect(
      sameFix(fix(['Use django.utils.timezone.now() instead of datetime.now()']), fix(['datetime.now() is naive; build the times with timezone.now()'])),
    ).toMatch(/^the same fix in other words/);
    expect(
      sameFix(
        fix(['Give each test its own directory with the tmp_path fixture: parallel workers shared one fixed /tmp path']),
        fix(['Use the tmp_path fixture rather than a fixed /tmp folder, so parallel workers never share files']),
      ),
    ).toMatch(/both name `tmp_path`/);
  });

  it('is not the same when the agents said different fixes, even where the diffs share a line', () => {
    const old = fix(['Decorate the test with @mock_s3 from moto so that boto3 talks to an in-memory S3'], ['s3 = boto3.client("s3")']);
    const fresh = fix(["Use moto's @mock_aws decorator (moto 5 replaced the per-service mocks)"], ['s3 = boto3.client("s3")']);
    expect(sameFix(old, fresh)).toBeUndefined();
    expect(sameFix(fix(['Run the migrations in TestMain']), fix(['Set TZ=UTC in TestMain so times compare']))).toBeUndefined();
  });

  it('falls back on the diffs only where an agent said nothing', () => {
    expect(sameFix(fix([], ['"pretest": "node scripts/seed.js"']), fix([], ['"pretest": "node scripts/seed.js"']))).toBe(
      'the same change (`"pretest": "node scripts/seed.js"`)',
    );
    expect(sameFix(fix([], ['import os']), fix([], ['import os']))).toBeUndefined();
  });

  it('reads the names of code a sentence gives', () => {
    expect([...codeNames('Call testdb.Migrate(t) from TestMain, with -p 1 and TZ=UTC; see `go test -race`')].sort()).toEqual(
      ['-p 1', 'go test -race', 'testdb.migrate', 'testmain', 'tz=utc'].sort(),
    );
  });
});

describe('a fix that changed', () => {
  it('is one that names code the old fix did not, even when it names the old one as gone', () => {
    const old = statedFix("Use moto's @mock_s3 (and create the archive bucket in the test) so no credentials are needed.\n\nThat is what the agent said.");
    expect(fixChanged(old, fix(['moto 5 removed mock_s3: decorate the tests with @mock_aws (from moto import mock_aws) and create the bucket first']))).toBe(
      true,
    );
    expect(fixChanged(old, fix(['Wrap the test in @mock_s3 and create the bucket before it runs']))).toBe(false);
    expect(fixChanged(statedFix('Run the migrations before the tests.'), fix(['Run the migrations before the tests run']))).toBe(false);
    expect(fixChanged(statedFix('Run the migrations before the tests.'), fix(['Give each test file its own database']))).toBe(true);
  });
});
