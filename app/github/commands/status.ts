import type { Command } from '../../engine/forge/command.js';
import { statusTable } from '../../engine/forge/status-table.js';
import type { Invocation } from './invocation.js';
import { planIssues } from './plan-issues.js';
import { specsHere } from './resolve-spec.js';

/**
 * `/harness status [SPEC]`: each spec's progress from its plan issues. On a pull request that
 * changes several specs it answers for all of them, since reading needs no choosing.
 */
export async function status(inv: Invocation, command: Extract<Command, { name: 'status' }>): Promise<string> {
  const specs = command.spec !== undefined ? [command.spec] : await specsHere(inv);
  if (specs.length === 0) {
    const where = inv.place.kind === 'pull' ? 'This pull request changes no spec' : 'This issue is not a plan issue';
    return `${where}; name the spec, as in \`/harness status SPC-001\`.`;
  }
  const tables: string[] = [];
  for (const spec of specs) tables.push(statusTable(spec, (await planIssues(inv, spec)).views));
  return tables.join('\n\n');
}
