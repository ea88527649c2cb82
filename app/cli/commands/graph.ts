import { parseArgs } from 'node:util';
import { analyzeGraph } from '../../engine/core/analysis/analyze.js';
import { graphJson, graphMermaid, graphText } from '../../engine/core/analysis/render.js';
import { formatProblem } from '../../engine/core/spec/problem.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath, loadSpecDir, specDirArg } from '../spec-input.js';

export const usage = `Usage: harness graph <spec-dir> [--format text|json|mermaid]

Show a spec's dependency graph: phases, plans, dependencies, the critical path,
the topological order, and write conflicts between plans that could run at once.

Options:
  --format F  text (default), json (stable, see README) or mermaid
  --json      the same as --format json
  -h, --help  show this help

Exit: 0 shown, 1 the spec has errors (printed as file:line: message), 2 usage error.
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
  const dir = specDirArg(positionals);
  const loaded = await loadSpecDir(dir, io);
  if (!loaded.valid || !loaded.spec) {
    for (const p of loaded.problems) io.stderr(`${formatProblem(p, displayPath(dir))}\n`);
    io.stderr(`harness graph: ${displayPath(dir)} has errors; fix them first (harness validate ${displayPath(dir)})\n`);
    return EXIT.problems;
  }
  const analysis = analyzeGraph(loaded.spec);
  if (format === 'json') io.stdout(`${JSON.stringify(graphJson(loaded.spec, analysis), null, 2)}\n`);
  else if (format === 'mermaid') io.stdout(graphMermaid(loaded.spec, analysis));
  else io.stdout(graphText(loaded.spec, analysis));
  return EXIT.ok;
}
