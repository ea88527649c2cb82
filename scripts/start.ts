// npm start: the embedded default. A fresh git repository in a temporary directory, the
// example spec committed into it, and `harness run` executing it end to end with the
// deterministic script agent. It ends by saying where to look.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../app/cli/main.js';
import { signalEntries } from '../app/engine/knowledge/documents/store-index.js';
import { pathFrom } from '../app/machine/files.js';
import { systemTicker } from '../app/machine/clock.js';
import { repoStateDir } from '../app/runner/repo.js';

const example = new URL('../examples/specs/SPC-001-notes-service', import.meta.url).pathname;
const repo = mkdtempSync(join(tmpdir(), 'harness-example-'));
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
const env = { GIT_AUTHOR_NAME: 'harness example', GIT_AUTHOR_EMAIL: 'example@harness.local' };

git('init', '--quiet', '--initial-branch=main');
git('config', 'user.name', env.GIT_AUTHOR_NAME);
git('config', 'user.email', env.GIT_AUTHOR_EMAIL);
writeFileSync(join(repo, 'README.md'), '# Notes service\n\nBuilt by harness from docs/specs/SPC-001-notes-service.\n');
cpSync(example, join(repo, 'docs/specs/SPC-001-notes-service'), { recursive: true });
git('add', '-A');
git('commit', '--quiet', '-m', 'Add spec SPC-001: notes service');

// Every command printed is said from where the person typed npm start (npm runs this script
// from the package's folder and says where that was in INIT_CWD), and names harness as it runs
// from this checkout: harness is not on PATH until the README's npm link.
const here = resolve(process.env.INIT_CWD ?? process.cwd());
const harness = `node ${pathFrom(here, new URL('../bin/harness.js', import.meta.url).pathname)}`;
const specDir = join(repo, 'docs/specs/SPC-001-notes-service');

console.log(`harness example: a fresh repository at ${repo}\n`);
const code = await main(['run', specDir, '--agent', 'script'], {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  cwd: here,
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
  self: harness,
  ticker: systemTicker(),
});
const worktree = join(repoStateDir(join(repo, '.git')), 'worktrees/SPC-001/integration');
// What the run captured: the signals it committed in the store on the integration branch.
const index = join(worktree, '.harness/knowledge/index.md');
const signals = existsSync(index) ? signalEntries(readFileSync(index, 'utf8')).reverse() : [];
console.log(`\nSignals captured (${signals.length}, committed in ${join(worktree, '.harness/knowledge')}):`);
for (const s of signals)
  console.log(`  ${s.type.padEnd(12)} ${s.severity.padEnd(6)} ${(s.plan ?? (s.phase ? `phase ${s.phase}` : '')).padEnd(9)} ${s.summary}`);
if (signals.length === 0) console.log('  none');
console.log('');
// Reflection on what the run captured: the run reflected itself when the spec was verified
// (knowledge.reflect.on_spec); a dry run shows what is left and why each signal is no lesson.
console.log('\nharness reflect --dry-run, in the integration worktree (the signals this run captured):');
await main(['reflect', '--dry-run'], {
  stdout: (t) => process.stdout.write(t.replace(/^(?=.)/gm, '  ')),
  stderr: (t) => process.stderr.write(t),
  cwd: worktree,
  env: process.env,
  isTTY: false,
});
// The built service's own commands, from its package.json: its command-line client and its server.
const built = JSON.parse(readFileSync(join(worktree, 'package.json'), 'utf8')) as { bin?: Record<string, string>; scripts?: Record<string, string> };
const client = Object.values(built.bin ?? {})[0];
console.log(`Where to look (each command runs as pasted, from ${here}):
  the repository:        ${repo}
  the built service:     ${worktree}
    its client:          node ${join(worktree, client ?? 'src/cli.js')} --help
    its server:          npm --prefix ${worktree} start   (${built.scripts?.start ?? 'no start script'}; Ctrl-C stops it)
  the spec's record:     ${join(specDir.replace(repo, worktree))}  (STATUS.md, ROADMAP.md, execution/)
  the history:           git -C ${repo} log --graph --oneline harness/SPC-001/integration
  run state:             ${join(repo, '.orchestration/SPC-001')}
  its status:            ${harness} status ${specDir}
  the harness command:   npm link   (in ${pathFrom(here, new URL('..', import.meta.url).pathname)}; then harness --help works anywhere)`);
process.exitCode = code;
