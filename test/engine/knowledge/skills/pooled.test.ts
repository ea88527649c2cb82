import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { attemptFailure, attemptSignals, type AttemptRecord } from '../../../../app/engine/lifecycle/signals.js';
import { renderSignal } from '../../../../app/engine/knowledge/signals/signal-file.js';
import { readSignal, type SignalRecord } from '../../../../app/engine/knowledge/signals/signal-record.js';
import { skillCandidates } from '../../../../app/engine/knowledge/skills/skill-candidate.js';
import { heuristicVerdicts } from '../../../../app/engine/knowledge/skills/skill-gates.js';
import { ROOT } from '../../../helpers/paths.js';
import { specOf } from '../../../helpers/spec.js';

/** Skills from recurring repairs: the repairs of one error, pooled by signature across plans and specs. */

const TEMPLATE = readFileSync(join(ROOT, 'templates', 'signal.md'), 'utf8');
const PLAN = loadSpec(specOf([{ id: '01-01', title: 'Store', filesModified: ['src/store/a.ts'] }])).spec!.planById.get('01-01')!;
const ERROR = (dir: string) => `the command exited with code 1\nError [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/ci/${dir}/src/db/pool' imported from /home/ci/${dir}/src/store/a.js`;

let minute = 0;
function repaired(spec: string, dir: string): SignalRecord[] {
  const failure = attemptFailure({ agentError: ERROR(dir), timedOut: false });
  const base: Omit<AttemptRecord, 'attempt' | 'failedBefore' | 'end'> = { spec, plan: PLAN, agent: 'command', timedOut: false, undeclaredWrites: [] };
  const drafts = [
    ...attemptSignals({ ...base, attempt: 1, failedBefore: 0, end: 'failed', failure }),
    ...attemptSignals({ ...base, attempt: 2, failedBefore: 1, end: 'verified', previous: { attempt: 1, failure }, seen: { insights: [{ kind: 'pattern', summary: 'Import local modules with their .js extension' }] } }),
  ];
  return drafts.map((d) => {
    const read = readSignal(`.harness/knowledge/signals/x/${minute}.signal.md`, renderSignal(TEMPLATE, d, { project: 'svc', at: new Date(Date.UTC(2026, 3, 1, 9, minute++)), key: `k${minute}` }).text);
    if ('problem' in read) throw new Error(read.problem);
    return read;
  });
}

describe('skills from recurring repairs', () => {
  const signals = [...repaired('SPC-001', 'a'), ...repaired('SPC-002', 'b')];

  it('pools the repairs of one signature across specs: one candidate, seen in both places', () => {
    const [candidate, ...rest] = skillCandidates({ signals, lessons: [] });
    expect(rest).toEqual([]);
    expect(candidate).toMatchObject({ source: 'repair', signature: "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '<path>' imported from <path>", places: ['svc SPC-001/01-01', 'svc SPC-002/01-01'] });
    expect(heuristicVerdicts(candidate!).every((v) => v.pass)).toBe(true);
    // A spec's own reflection pools in the other specs' repairs of the same error.
    expect(skillCandidates({ signals, lessons: [], spec: 'SPC-002' })[0]!.places).toEqual(['svc SPC-002/01-01', 'svc SPC-001/01-01']);
  });

  it('does not call a trigger project-specific for a path inside the error message', () => {
    const [candidate] = skillCandidates({ signals: repaired('SPC-003', 'c'), lessons: [] });
    expect(candidate!.places).toHaveLength(1);
    const reusability = heuristicVerdicts(candidate!).find((v) => v.gate === 'reusability')!;
    expect(reusability.pass).toBe(true);
    expect(reusability.reason).toMatch(/^its trigger "Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module/);
  });
});
