import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { desiredIssue, issueUnchanged, parseMarker, planTextFromBody } from '../../../app/engine/forge/plan-issue.js';
import { isActive, isQueued, isRemoved, isSatisfied, planIssueView } from '../../../app/engine/forge/plan-issue-view.js';
import { statusTable } from '../../../app/engine/forge/status-table.js';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { readSpecFiles } from '../../../app/machine/spec-files.js';
import { EXAMPLE_SPEC } from '../../helpers/paths.js';

const EXAMPLE = EXAMPLE_SPEC;

describe('a plan issue', async () => {
  const spec = loadSpec(await readSpecFiles(EXAMPLE)).spec!;
  const plan = spec.planById.get('02-03')!;
  const planText = readFileSync(join(EXAMPLE, plan.file), 'utf8');
  const desired = desiredIssue({
    spec,
    plan,
    planText,
    specPath: 'docs/specs/SPC-001-notes-service',
    blobBase: 'https://github.com/acme/notes/blob/main',
    issueNumbers: new Map([['01-02', 12]]),
  });

  it('is titled by the plan and labelled for the scheduler', () => {
    expect(desired.title).toBe('[02-03] Notes endpoints');
    expect(desired.labels).toEqual(['harness:plan', 'needs:01-02', 'needs:02-02', 'phase:02', 'spec:SPC-001']);
    expect(desired.body.split('\n')[0]).toMatch(/^<!-- harness:plan SPC-001\/02-03 hash=[0-9a-f]{16} -->$/);
    expect(desired.body).toContain('**Depends on:** #12 (01-02), 02-02');
  });

  it('carries the plan text, which the scheduler reads back without another request', () => {
    expect(planTextFromBody(desired.body)).toBe(planText);
    expect(parseMarker(desired.body)).toMatchObject({ spec: 'SPC-001', plan: '02-03' });
  });

  it("knows when someone changed what harness owns, and ignores status and people's labels", () => {
    const labels = [...desired.labels, 'status:running', 'good first issue'];
    expect(issueUnchanged({ title: desired.title, body: desired.body, labels })).toBe(true);
    expect(issueUnchanged({ title: `${desired.title}!`, body: desired.body, labels })).toBe(false);
    expect(issueUnchanged({ title: desired.title, body: desired.body.replace('Notes', 'Nodes'), labels })).toBe(false);
    expect(issueUnchanged({ title: desired.title, body: desired.body, labels: labels.filter((l) => l !== 'needs:02-02') })).toBe(false);
  });

  it("reads where a plan is from the App's records on the marker line, never from its status label or state", () => {
    const body = (records: string) => `<!-- harness:plan SPC-001/01-02 hash=0123456789abcdef${records} -->\n**Depends on:** nothing`;
    const view = (records: string, labels: string[], state = 'open') =>
      planIssueView({ number: 2, title: '[01-02] Plan', body: body(records), labels, state })!;
    expect(parseMarker(body(' status=queued phase_failed=42 removed=7'))).toMatchObject({ status: 'queued', phaseFailed: '42', removed: 7 });
    expect(parseMarker(body(' status=ready'))?.status).toBeUndefined();

    // A label someone added is only shown: the record is what the plan is.
    expect(view('', ['status:ready'])).toMatchObject({ shown: 'ready' });
    expect(view('', ['status:ready']).state).toBeUndefined();
    expect(isQueued(view('', ['status:ready']))).toBe(false);
    expect(isQueued(view(' status=queued', []))).toBe(true);
    expect(isActive(view(' status=running', ['status:failed']))).toBe(true);
    // Done by the record alone, whatever the state and labels show; removed likewise.
    expect(isSatisfied(view('', ['status:verified'], 'closed'))).toBe(false);
    expect(isSatisfied(view(' verified=12', []))).toBe(true);
    expect(isRemoved(view('', [], 'closed'))).toBe(false);
    expect(isRemoved(view(' removed=7', [], 'closed'))).toBe(true);
  });
});

describe('the status table of /harness status', () => {
  it('counts a spec of one plan in the singular', () => {
    const view = planIssueView({
      number: 7,
      title: '[01-01] Reset tokens',
      body: '<!-- harness:plan SPC-042/01-01 status=verified verified=7 -->\n**Depends on:** nothing',
      labels: ['harness:plan', 'status:verified'],
      state: 'closed',
      state_reason: 'completed',
    })!;
    expect(statusTable('SPC-042', [view]).split('\n')[0]).toBe('**SPC-042**: 1 of 1 plan verified');
  });
});
