import { parseArgs } from 'node:util';
import { analyzeGraph } from '../../engine/core/analysis/analyze.js';
import { graphJson, graphMermaid, graphText } from '../../engine/core/analysis/render.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { loadSpecDir, specDirArg, specDirOf } from '../spec-input.js';
import { specForGraph } from '../graph-input.js';

export const usage = `Usage: harness graph <spec-dir> [--format text|json|mermaid]

Show a spec's dependency graph: phases, plans, dependencies, the critical path,
the topological order, and write conflicts between plans that could run at once.

Options:
  --format F  text (default), json (stable, see docs/cli.md) or mermaid
  --json      the same as --format json
  -h, --help  show this help

Errors that do not change the graph (a check, an unknown key) are noted and the graph is
shown; errors in plans' ids, files or dependencies stop it (with --json, as a JSON error).

Exit: 0 shown, 1 the graph has errors (printed as file:line: message), 2 usage error.
`;

const FORMATS = ['text', 'json', 'mermaid'] as const;

export async function graphCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string' }, json: { type: 'boolean' } },
  });
  const format = values.json ? 'json' : (values.format ?? 'text');
  if (!FORMATS.includes(format as (typeof FORMATS)[number])) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not "${format}"`);
  }
  const dir = await specDirOf(specDirArg(positionals), io);
  const spec = specForGraph(await loadSpecDir(dir, io), dir, 'graph', io, format === 'json');
  if (!spec) return EXIT.problems;
  const analysis = analyzeGraph(spec);
  if (format === 'json') io.stdout(`${JSON.stringify(graphJson(spec, analysis), null, 2)}\n`);
  else if (format === 'mermaid') io.stdout(graphMermaid(spec, analysis));
  else io.stdout(graphText(spec, analysis));
  return EXIT.ok;
}
