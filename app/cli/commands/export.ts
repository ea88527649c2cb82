import { writeFile } from 'node:fs/promises';
import { plural } from '../../engine/core/plural.js';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { knowledgeExport } from '../../engine/knowledge/genes/export.js';
import { geneSettingsOf } from '../../engine/knowledge/genes/gene-settings.js';
import { makeSafe, secretValues } from '../../machine/content-safety.js';
import { isDirectory } from '../../machine/files.js';
import { readTrajectory } from '../../machine/gene-store.js';
import { readKnowledgeStore } from '../../machine/knowledge-store.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath } from '../spec-input.js';
import { knowledgePlace, parseAt, readConfig } from './knowledge-place.js';

export const usage = `Usage: harness export [--knowledge DIR] [--out FILE] [--signals] [--at TIME]

The knowledge store as one JSON snapshot: every lesson, skill (active and archived), gene,
capsule and spike with its frontmatter and text; each gene with its metrics from the
trajectory, its tier, its GDI score and what decay would do with it; the trajectory's
figures per entry; and the files that are not valid. Signals are counted, and included with
--signals. The format is stable (format "harness-knowledge-export", version 1).

Options:
  --knowledge DIR  the knowledge store (default: .harness/knowledge in this repository)
  --out FILE       write the snapshot there (default: standard output)
  --signals        include every signal too
  --at TIME        compute metrics and decay as of this ISO-8601 time (default: now)
  -h, --help       show this help

Every text goes through the content-safety pass before it is written.

Exit: 0 written, 1 the config has problems, 2 usage error.
`;

export async function exportCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { knowledge: { type: 'string' }, out: { type: 'string' }, signals: { type: 'boolean' }, at: { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; the store is given with --knowledge DIR`);
  const at = parseAt(values.at);
  const place = await knowledgePlace(io, values.knowledge);
  const config = await readConfig(place.repoRoot, io, 'export');
  if (!config) return EXIT.problems;
  const present = await isDirectory(place.store);
  const files = present ? (await readKnowledgeStore(place.store)).files.filter((f) => f.path.endsWith('.md')) : [];
  const snapshot = knowledgeExport({
    files,
    stats: await readTrajectory(place.store),
    settings: geneSettingsOf(config.knowledge.genes),
    now: at,
    project: place.project,
    withSignals: values.signals === true,
  });
  const safety = { roots: [...new Set([place.root, place.repoRoot, place.store, io.cwd])], secrets: secretValues(io.env) };
  const text = (await makeSafe(`${JSON.stringify(snapshot, null, 2)}\n`, safety)).text;
  if (values.out === undefined) {
    io.stdout(text);
    return EXIT.ok;
  }
  const out = resolve(io.cwd, values.out);
  await writeFile(out, text);
  const c = snapshot.counts;
  io.stderr(
    `harness export: wrote ${displayPath(relative(io.cwd, out))}: ${plural(c.lessons, 'lesson')}, ${plural(c.skills, 'skill')} (${c.skills_archived} archived), ${plural(c.genes, 'gene')}, ${plural(c.capsules, 'capsule')}, ${plural(c.spikes, 'spike document')}, ${plural(c.signals, 'signal')}${values.signals ? '' : ' (counted)'}, ${plural(c.trajectory_entries, 'trajectory entry', 'trajectory entries')}\n`,
  );
  if (c.problems! > 0)
    io.stderr(`harness export: ${c.problems} file${c.problems === 1 ? ' is' : 's are'} not valid and left out; they are listed under "problems"\n`);
  return EXIT.ok;
}
