import { describe, expect, it } from 'vitest';
import type { IssueRecord } from '../../app/gateway/issues.js';
import type { IssueUpdate } from '../../app/gateway/issues.js';
import { parseMarker } from '../../app/engine/forge/plan-issue.js';
import { recordResumeAt } from '../../app/worker-action/resume-record.js';

function issue(body: string): IssueRecord {
  return { id: 1, number: 7, title: '[01-01] Greeting', body, labels: ['harness:plan', 'status:checkpoint'], state: 'open', stateReason: null, url: '' };
}

function recordingForge() {
  const updates: { number: number; update: IssueUpdate }[] = [];
  return {
    updates,
    updateIssue: (number: number, update: IssueUpdate) => {
      updates.push({ number, update });
      return Promise.resolve(issue(update.body ?? ''));
    },
  };
}

const MARKER = '<!-- harness:plan SPC-007/01-01 hash=0123456789abcdef pr=3 -->\nThe plan.';

describe('the resume time a usage-limit pause records on its plan issue', () => {
  it('records the reset time on the marker line, outside the hash, in one PATCH', async () => {
    const forge = recordingForge();
    const paused = issue(MARKER);
    await recordResumeAt(forge, paused, new Date('2025-11-24T16:00:00Z'));
    expect(forge.updates).toEqual([
      { number: 7, update: { body: '<!-- harness:plan SPC-007/01-01 hash=0123456789abcdef pr=3 resume_at=2025-11-24T16:00:00.000Z -->\nThe plan.' } },
    ]);
    expect(parseMarker(paused.body)).toMatchObject({ hash: '0123456789abcdef', pr: 3, resumeAt: new Date('2025-11-24T16:00:00Z') });
  });

  it("clears a record left by an earlier pause at a person's checkpoint, so no round answers that one `continue`", async () => {
    const forge = recordingForge();
    await recordResumeAt(forge, issue(MARKER.replace(' -->', ' resume_at=2025-11-24T16:00:00.000Z -->')), undefined);
    expect(forge.updates).toEqual([{ number: 7, update: { body: MARKER } }]);
  });

  it('writes nothing when the record is already as it should be', async () => {
    const forge = recordingForge();
    await recordResumeAt(forge, issue(MARKER), undefined);
    expect(forge.updates).toEqual([]);
  });
});
