// npm start: the embedded default. A fresh git repository in a temporary directory, the
// example spec committed into it, and `harness run` executing it end to end with the
// deterministic script agent. It ends by saying where to look.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../app/cli/main.js';
import { signalEntries } from '../app/engine/knowledge/documents/store-index.js';

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

console.log(`harness example: a fresh repository at ${repo}\n`);
const code = await main(['run', 'docs/specs/SPC-001-notes-service', '--agent', 'script'], {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  cwd: repo,
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
});
const worktree = join(repo, '.git/harness/worktrees/SPC-001/integration');
// What the run captured: the signals it committed in the store on the integration branch.
const index = join(worktree, '.harness/knowledge/index.md');
const signals = existsSync(index) ? signalEntries(readFileSync(index, 'utf8')).reverse() : [];
console.log(`\nSignals captured (${signals.length}, committed in ${join(worktree, '.harness/knowledge')}):`);
for (const s of signals) console.log(`  ${s.type.padEnd(12)} ${s.severity.padEnd(6)} ${(s.plan ?? (s.phase ? `phase ${s.phase}` : '')).padEnd(9)} ${s.summary}`);
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
console.log(`Where to look:
  the repository:        ${repo}
  the built service:     ${worktree}  (node src/server.js, node bin/notes.js --help)
  the spec's record:     ${join(worktree, 'docs/specs/SPC-001-notes-service')}  (STATUS.md, ROADMAP.md, execution/)
  the history:           git -C ${repo} log --graph --oneline harness/SPC-001/integration
  run state:             ${join(repo, '.orchestration/SPC-001')}
  again, from there:     node ${new URL('../bin/harness.js', import.meta.url).pathname} status ${join(repo, 'docs/specs/SPC-001-notes-service')}`);
process.exitCode = code;
