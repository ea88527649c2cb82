import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatCommitMessage, parseTrailers } from '../../app/engine/core/agents/commit-message.js';
import { RunRepo } from '../../app/runner/repo.js';
import { git, makeRepo } from '../helpers/repo.js';

// A plan title reaches the merge commit's subject. Validation refuses titles of more than
// one line, but a commit message is built from single-line, sanitised values whatever
// reaches it: a title must not forge a "Plan:" trailer, nor a NUL refuse every merge.
const FORGED = 'Login\n\nPlan: 09-99\nSpec: SPC-999';

describe('commit messages from hostile titles', () => {
  it('the engine formatter keeps a title on the subject line and the trailers its own', () => {
    const text = formatCommitMessage({ subject: `01-01: ${FORGED}\u0000`, trailers: [{ key: 'Plan', value: '01-01\nTask: 9/9' }] });
    expect(text).toBe('01-01: Login Plan: 09-99 Spec: SPC-999\n\nPlan: 01-01 Task: 9/9\n');
    expect(parseTrailers(text)).toEqual([{ key: 'Plan', value: '01-01 Task: 9/9' }]);
  });

  it('the local run merges with the trailers it was given and no other', async () => {
    const root = await makeRepo({});
    git(root, 'checkout', '--quiet', '-b', 'plan');
    writeFileSync(join(root, 'a.txt'), 'a\n');
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'work');
    git(root, 'checkout', '--quiet', 'main');
    const repo = await RunRepo.open(root);
    const merged = await repo.merge(root, 'plan', {
      subject: `Merge plan 01-01: ${FORGED}\u0000`,
      trailers: [
        { key: 'Plan', value: '01-01' },
        { key: 'Spec', value: 'SPC-001' },
      ],
    });
    expect(merged.ok).toBe(true);
    expect(git(root, 'log', '-1', '--format=%(trailers:only,unfold)')).toBe('Plan: 01-01\nSpec: SPC-001\n\n');
    expect(git(root, 'log', '-1', '--format=%s')).toBe('Merge plan 01-01: Login Plan: 09-99 Spec: SPC-999\n');
  });
});
