import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseCommand } from '../../../app/engine/forge/parse-command.js';
import { ROOT } from '../../helpers/paths.js';

/**
 * templates/workflows/harness-app.yml decides which comments start the App's job at all; the
 * command parser decides which comments hold a command. Every comment the parser takes must
 * pass the workflow's filter, or a command written under a sentence is silently never run.
 */

const workflow = parse(readFileSync(join(ROOT, 'templates', 'workflows', 'harness-app.yml'), 'utf8')) as { jobs: { app: { if: string } } };
const condition = workflow.jobs.app.if;

/**
 * The workflow's condition for an issue_comment event, evaluated as Actions does for the two
 * functions it may use on the comment's body (both compare case-insensitively).
 */
function startsJob(body: string): boolean {
  const clause = /\(github\.event_name != 'issue_comment' \|\| (startsWith|contains)\(github\.event\.comment\.body, '([^']+)'\)\)/.exec(condition);
  if (!clause) throw new Error(`harness-app.yml's if: does not filter comments the way this test reads it: ${condition}`);
  const [, fn, text] = clause;
  return fn === 'contains' ? body.toLowerCase().includes(text!.toLowerCase()) : body.toLowerCase().startsWith(text!.toLowerCase());
}

const BODIES = [
  '/harness help',
  'Thanks! Looks right.\n\n/harness respond 02-03 approve',
  '  /harness retry 02-03',
  'Before this, try:\n```\n/harness abort 02-03\n```\n/harness status',
  '> quoting someone\n/harness exectue all',
];

describe('harness-app.yml and the command parser agree on where /harness may stand', () => {
  it('every comment the parser takes a command (or a line to answer with help) from starts the job', () => {
    for (const body of BODIES) {
      expect(parseCommand(body), body).toBeDefined();
      expect(startsJob(body), body).toBe(true);
    }
  });

  it('a comment without /harness anywhere starts no job', () => {
    expect(startsJob('LGTM, merging')).toBe(false);
  });
});
