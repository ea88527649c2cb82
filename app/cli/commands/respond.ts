import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RunRepo } from '../../runner/repo.js';
import { OrchestrationStore } from '../../runner/store.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath, loadSpecDir, specDirOf } from '../spec-input.js';
import { respondTarget } from '../respond-target.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness respond <spec-dir> <plan> <answer...>

Answer a checkpoint a plan (or a phase, as phase-NN) is waiting at. A running
"harness run" picks the answer up at once; a stopped one uses it when started again.
For a human check, "approve" (or yes, ok, pass) passes it; anything else fails it
with your words as the evidence.

Exit: 0 answered, 1 nothing is waiting there, 2 usage error.
`;

export async function respondCommand(args: string[], io: CliIO): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [named, target, ...words] = positionals;
  if (named === undefined) throw new UsageError('missing <spec-dir>');
  const dir = await specDirOf(named, io);
  if (target === undefined) throw new UsageError('missing <plan>');
  const answer = words.join(' ').trim();
  if (!answer) throw new UsageError('missing <answer>');
  const loaded = await loadSpecDir(dir, io);
  if (!loaded.spec) throw new UsageError(`${displayPath(dir)}: cannot read the spec (harness validate ${displayPath(dir)})`);
  const spec = loaded.spec;
  const session = respondTarget(spec, target);
  const repo = await RunRepo.open(resolve(io.cwd, dir));
  const store = OrchestrationStore.for(repo.root, spec.id);
  const checkpoint = await store.readCheckpoint(session);
  if (!checkpoint) {
    io.stderr(`harness respond: ${session} is not waiting at a checkpoint (harness status ${displayPath(dir)})\n`);
    return EXIT.problems;
  }
  if (checkpoint.options?.length && checkpoint.origin === 'worker' && checkpoint.kind === 'decision' && !checkpoint.options.includes(answer)) {
    io.stderr(`harness respond: "${oneLine(answer)}" is not one of ${checkpoint.options.map(oneLine).join(', ')}\n`);
    return EXIT.usage;
  }
  await store.writeResponse(session, { checkpoint: checkpoint.id, answer, respondedAt: new Date().toISOString(), by: io.env.USER ?? 'local' });
  io.stdout(
    `${session}: answered "${oneLine(checkpoint.prompt.split('\n')[0] ?? '')}" with "${oneLine(answer)}"; a running harness run continues now, a stopped one when started again\n`,
  );
  return EXIT.ok;
}
