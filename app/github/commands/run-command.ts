import type { Command } from '../../engine/forge/command.js';
import { helpText } from '../../engine/forge/help.js';
import { statusTable } from '../../engine/forge/status-table.js';
import { abort } from './abort.js';
import { execute } from './execute.js';
import { specsHere, type Invocation } from './invocation.js';
import { spike } from './knowledge.js';
import { planIssues } from './plan-issues.js';
import { planning } from './planning.js';
import { audit } from './audit.js';
import { reflect } from './reflect.js';
import { retrospective } from './retrospective.js';
import { respond } from './respond.js';
import { retry } from './retry.js';
import { verify } from './verify.js';

/** Runs an authorised command; the answer to post is what it returns. */
export async function runCommand(inv: Invocation, command: Command, askedIn: string, commentId?: number): Promise<string> {
  switch (command.name) {
    case 'execute':
      return execute(inv, command);
    case 'status':
      return status(inv, command);
    case 'verify':
      return verify(inv, command);
    case 'retry':
      return retry(inv, command);
    case 'abort':
      return abort(inv, command);
    case 'respond':
      return respond(inv, command);
    case 'spike':
      return spike(inv, command, askedIn);
    case 'reflect':
      return reflect(inv);
    case 'retrospective':
      return retrospective(inv, command);
    case 'audit':
      return audit(inv);
    case 'help':
      return helpText();
    default:
      // The planning commands: the worker reads the command back from its comment.
      return planning(inv, command, commentId);
  }
}

/**
 * `/harness status [SPEC]`: each spec's progress from its plan issues. On a pull request that
 * changes several specs it answers for all of them, since reading needs no choosing.
 */
async function status(inv: Invocation, command: Extract<Command, { name: 'status' }>): Promise<string> {
  const specs = command.spec !== undefined ? [command.spec] : await specsHere(inv);
  if (specs.length === 0) {
    const where = inv.place.kind === 'pull' ? 'This pull request changes no spec' : 'This issue is not a plan issue';
    return `${where}; name the spec, as in \`/harness status SPC-001\`.`;
  }
  const tables: string[] = [];
  for (const spec of specs) tables.push(statusTable(spec, (await planIssues(inv, spec)).views));
  return tables.join('\n\n');
}
