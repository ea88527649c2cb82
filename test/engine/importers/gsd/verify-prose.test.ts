import { describe, expect, it } from 'vitest';
import { verifyFindings } from '../../../../app/engine/importers/gsd/verify-command.js';
import { importGsd } from '../../../../app/engine/importers/gsd/import.js';

/**
 * GSD's `<verify>` in English is never guessed into a check. On a real project, "verify output
 * has NO managedFields" had become `contains: has` (the meaning inverted), "is unchanged"
 * `contains: is`, "matches the input" `contains: matches`. A command is checked by its exit
 * status; an expected output only from the exact form, quoted; the rest is reported.
 */

const contains = (text: string) => verifyFindings(text).flatMap((f) => (f.kind === 'command' && f.contains !== undefined ? [f.contains] : []));
const unchecked = (text: string) => verifyFindings(text).flatMap((f) => (f.kind === 'unchecked' ? [f.text] : []));

describe('<verify> prose', () => {
  it.each([
    ['`kubectl get deploy web -o yaml` - verify output has NO managedFields'],
    ['`node scripts/roundtrip.js fixtures/a.yaml` — verify output is unchanged'],
    ['`node bin/render.js in.svg out.svg`, then visually verify the output matches the input'],
    ['`npm run format -- --check` output is identical to before'],
    ['`node cli.js --count` prints more than 3 lines'],
    ['`node cli.js --list` shows no duplicates'],
    ['`node cli.js` output does not contain "TODO"'],
    ['verify the output of `kubectl get pods` shows nothing pending'],
  ])('%s: the command is checked by its exit status, the words are reported, no contains is guessed', (text) => {
    expect(contains(text)).toEqual([]);
    expect(verifyFindings(text).filter((f) => f.kind === 'command')).toHaveLength(1);
    expect(unchecked(text)).toEqual([text]);
  });

  it.each(['visually verify the output matches the input', 'Check that the output is unchanged', 'curl localhost:5173 returns 200'])(
    '%s: no command, no check, reported',
    (text) => {
      expect(verifyFindings(text)).toEqual([{ kind: 'unchecked', text }]);
    },
  );

  it('takes the exact forms: the quoted output right after the command, and words that say only "it exits 0"', () => {
    expect(verifyFindings('`echo "rent: 1200" | node bin/ledger.js --total` -- must output `total: 1200`')).toEqual([
      { kind: 'command', command: 'echo "rent: 1200" | node bin/ledger.js --total', contains: 'total: 1200' },
    ]);
    expect(verifyFindings('`node cli.js --version` prints "1.2.0"')).toEqual([{ kind: 'command', command: 'node cli.js --version', contains: '1.2.0' }]);
    expect(verifyFindings('Run `npx tsc --noEmit` — must pass with zero errors.')).toEqual([{ kind: 'command', command: 'npx tsc --noEmit' }]);
    expect(verifyFindings('`npm test` passes')).toEqual([{ kind: 'command', command: 'npm test' }]);
    // A bare word after "prints" is no exact form: "prints True" could be "prints True or False".
    expect(contains('`python check.py` prints True')).toEqual([]);
  });

  it('imports each as a warning naming the words, and writes no contains', () => {
    const plan = [
      '---',
      'phase: 01-setup',
      'plan: 01',
      'files_modified: [deploy/web.yaml]',
      '---',
      '<objective>Strip managed fields.</objective>',
      '<tasks>',
      '<task type="auto">',
      '  <name>Task 1: Strip</name>',
      '  <action>Strip them.</action>',
      '  <verify>`kubectl get deploy web -o yaml` - verify output has NO managedFields</verify>',
      '</task>',
      '<task type="auto">',
      '  <name>Task 2: Render</name>',
      '  <action>Render.</action>',
      '  <verify>visually verify the output matches the input</verify>',
      '</task>',
      '</tasks>',
      '',
    ].join('\n');
    const result = importGsd(
      [
        { path: 'ROADMAP.md', text: '# Roadmap\n\n### Phase 1: Setup\n**Goal**: Strip\n' },
        { path: 'PROJECT.md', text: '# Tiny\n' },
        { path: 'phases/01-setup/01-01-PLAN.md', text: plan },
      ],
      { specId: 'SPC-001' },
    );
    const written = result.files.find((f) => f.path.endsWith('01-01-PLAN.md'))!.text;
    expect(written).not.toMatch(/contains:/);
    expect(written).toContain('command: kubectl get deploy web -o yaml');
    expect(result.problems.filter((p) => p.code === 'unchecked-verify').map((p) => p.message)).toEqual([
      '"Task 1: Strip": its <verify> says "`kubectl get deploy web -o yaml` - verify output has NO managedFields" (its command `kubectl get deploy web -o yaml` is checked by its exit status alone), which harness does not turn into a check from the words; write it in must_pass (a command_output with expect.contains, a file_contains, or a human check)',
      '"Task 2: Render": its <verify> says "visually verify the output matches the input", which harness does not turn into a check from the words; write it in must_pass (a command_output with expect.contains, a file_contains, or a human check)',
    ]);
  });
});
