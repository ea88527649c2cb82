import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { attemptFailure, attemptSignals, type AttemptRecord } from '../../../../app/engine/lifecycle/signals.js';
import { renderSignal } from '../../../../app/engine/knowledge/signals/signal-file.js';
import { readSignal, type SignalRecord } from '../../../../app/engine/knowledge/signals/signal-record.js';
import { skillCandidates } from '../../../../app/engine/knowledge/skills/skill-candidate.js';
import { skillName } from '../../../../app/engine/knowledge/skills/skill-document.js';
import { heuristicVerdicts } from '../../../../app/engine/knowledge/skills/skill-gates.js';
import { ROOT } from '../../../helpers/paths.js';
import { specOf } from '../../../helpers/spec.js';

/** Skills from recurring repairs: the repairs of one error, pooled by signature across plans and specs. */

const TEMPLATE = readFileSync(join(ROOT, 'templates', 'signal.md'), 'utf8');
const PLAN = loadSpec(specOf([{ id: '01-01', title: 'Store', filesModified: ['src/store/a.ts'] }])).spec!.planById.get('01-01')!;
const SNAPSHOT = (run: string) => `the command exited with code 1\nAssertionError: snapshot mismatch: row run-${run} differs from the stored one`;
const ERROR = (dir: string) =>
  `the command exited with code 1\nError [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/ci/${dir}/src/db/pool' imported from /home/ci/${dir}/src/store/a.js`;

let minute = 0;
function repaired(spec: string, dir: string, error = ERROR(dir)): SignalRecord[] {
  const failure = attemptFailure({ agentError: error, timedOut: false });
  const base: Omit<AttemptRecord, 'attempt' | 'failedBefore' | 'end'> = { spec, plan: PLAN, agent: 'command', timedOut: false, undeclaredWrites: [] };
  const drafts = [
    ...attemptSignals({ ...base, attempt: 1, failedBefore: 0, end: 'failed', failure }),
    ...attemptSignals({
      ...base,
      attempt: 2,
      failedBefore: 1,
      end: 'verified',
      previous: { attempt: 1, failure },
      seen: { insights: [{ kind: 'pattern', summary: 'Import local modules with their .js extension' }] },
    }),
  ];
  return drafts.map((d) => {
    const read = readSignal(
      `.harness/knowledge/signals/x/${minute}.signal.md`,
      renderSignal(TEMPLATE, d, { project: 'svc', at: new Date(Date.UTC(2026, 3, 1, 9, minute++)), key: `k${minute}` }).text,
    );
    if ('problem' in read) throw new Error(read.problem);
    return read;
  });
}

describe('skills from recurring repairs', () => {
  const signals = [...repaired('SPC-001', 'a'), ...repaired('SPC-002', 'b')];

  it('pools the repairs of one signature across specs: one candidate, seen in both places', () => {
    const [candidate, ...rest] = skillCandidates({ signals, lessons: [] });
    expect(rest).toEqual([]);
    expect(candidate).toMatchObject({
      source: 'repair',
      signature: attemptFailure({ agentError: ERROR('z'), timedOut: false }).signature,
      places: ['svc SPC-001/01-01', 'svc SPC-002/01-01'],
    });
    expect(candidate!.signature).toMatch(/^Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module '<\w+>' imported from <path>$/);
    expect(heuristicVerdicts(candidate!).every((v) => v.pass)).toBe(true);
    // A spec's own reflection pools in the other specs' repairs of the same error.
    expect(skillCandidates({ signals, lessons: [], spec: 'SPC-002' })[0]!.places).toEqual(['svc SPC-002/01-01', 'svc SPC-001/01-01']);
  });

  it('waits for a repair to recur before it is a skill, whatever paths its error message holds', () => {
    const [once] = skillCandidates({ signals: repaired('SPC-003', 'c'), lessons: [] });
    expect(once!.places).toHaveLength(1);
    const reusability = heuristicVerdicts(once!).find((v) => v.gate === 'reusability')!;
    expect(reusability.pass).toBe(false);
    expect(reusability.reason).toMatch(
      /^seen only in svc SPC-003\/01-01: a skill needs a repair that recurred in 2 distinct plans; its trigger "Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module/,
    );
    const [twice] = skillCandidates({ signals: [...repaired('SPC-003', 'c'), ...repaired('SPC-006', 'f')], lessons: [] });
    expect(heuristicVerdicts(twice!).find((v) => v.gate === 'reusability')!.pass).toBe(true);
  });

  it('names a skill from its signature: no date, number or path of one occurrence in the name', () => {
    const [candidate] = skillCandidates({
      signals: [...repaired('SPC-004', 'd', SNAPSHOT('2026-04-27T15:02:11Z')), ...repaired('SPC-005', 'e', SNAPSHOT('2026-05-02T08:40:00Z'))],
      lessons: [],
    });
    expect(candidate!.signature).toBe('AssertionError: snapshot mismatch: row run-<date> differs from the stored one');
    expect(skillName(candidate!, new Set())).toBe('assertionerror-snapshot-mismatch-row-run-differs');
  });
});
