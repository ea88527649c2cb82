import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../../app/engine/core/spec/plan.js';
import type { SurfacedEntry } from '../../../app/engine/knowledge/documents/loop.js';
import { attemptPlan } from '../../../app/engine/lifecycle/attempt-plan.js';
import { manualClock, memoryVerifyPorts, memoryWorkspace, recordingProgress, tableAnswers, testAgent } from '../../helpers/lifecycle.js';

const PLAN = parsePlan(
  'planning/plans/01-core/01-02-PLAN.md',
  [
    '---',
    'plan_id: "01-02"',
    'title: Greeting',
    'files_modified: ["out/**"]',
    'must_pass:',
    '  - { id: greeting, type: file_exists, path: out/greeting.txt }',
    '---',
    '# Greeting',
    '',
  ].join('\n'),
  '01',
).plan!;

const LESSON: SurfacedEntry = {
  path: 'lessons/workflow/sign-greetings.lesson.md',
  kind: 'lesson',
  title: 'Greetings that are not signed get rejected in review.',
  text: 'End every greeting with the line "-- harness".',
  score: 5.2,
  why: 'tags greeting; names out/greeting.txt (plan: out/**)',
};

async function attempt(knowledge?: SurfacedEntry[]) {
  const clock = manualClock();
  const workspace = memoryWorkspace(clock);
  const agent = testAgent('greeter', async (context, say) => {
    await say.ready();
    workspace.commit('01-02: Greeting', { 'out/greeting.txt': 'hello\n' });
    await say.completed();
  });
  const outcome = await attemptPlan(
    {
      spec: 'SPC-007',
      plan: PLAN,
      agent: 'greeter',
      session: 's',
      base: 'base',
      resume: false,
      prompt: async () => '# Greeting\n',
      env: {},
      logDir: '/logs',
      ...(knowledge ? { knowledge } : {}),
    },
    { agent: () => agent, workspace, verifyPorts: memoryVerifyPorts(workspace, clock).open, answers: tableAnswers(), progress: recordingProgress(), clock },
  );
  return { outcome, task: agent.contexts[0]!.task };
}

describe('attemptPlan: surfaced knowledge', () => {
  it("hands the attempt's knowledge to the agent in assign_task, best first as it came", async () => {
    const { outcome, task } = await attempt([LESSON, { ...LESSON, path: 'skills/x/SKILL.md', kind: 'skill', score: 2 }]);
    expect(outcome.kind).toBe('verified');
    expect(task.knowledge).toEqual([LESSON, { ...LESSON, path: 'skills/x/SKILL.md', kind: 'skill', score: 2 }]);
  });

  it('leaves the field out when nothing was surfaced', async () => {
    expect((await attempt()).task).not.toHaveProperty('knowledge');
    expect((await attempt([])).task).not.toHaveProperty('knowledge');
  });
});
