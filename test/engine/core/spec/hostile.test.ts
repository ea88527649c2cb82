import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { checkRepoPath } from '../../../../app/engine/core/spec/paths.js';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';
import { suggest } from '../../../../app/engine/core/spec/suggest.js';
import { planMd, planPath, SPEC_MD, specFiles, specOf } from '../../../helpers/spec.js';

// What a fork PR's author can write: each of these once hung, crashed or fooled the validator
// (issue 10). The tests run at the sizes of the attack; a regression shows as a test timeout.

const PLAN = planPath('01-01');

function problemsOf(files: ReturnType<typeof specFiles>): string[] {
  return loadSpec(files).problems.map((p) => formatProblem(p));
}

function withPlan(text: string, extra: Record<string, string> = {}) {
  return specFiles({ 'SPEC.md': SPEC_MD, [PLAN]: text, ...extra });
}

describe('hostile specs: nesting', () => {
  it('a 10,000-deep flow sequence is a problem at its line, not a stack overflow', () => {
    const text = planMd({ id: '01-01' }).replace('depends_on: []', `depends_on: ${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:4: YAML nesting deeper than 64 levels; frontmatter is a few flat keys and short lists, so flatten this value`,
    ]);
  });

  it('so is a 10,000-deep "- - -" block sequence and a deep flow mapping', () => {
    const block = planMd({ id: '01-01' }).replace('depends_on: []', `depends_on:\n  ${'- '.repeat(10_000)}x`);
    expect(problemsOf(withPlan(block))).toEqual([
      `${PLAN}:5: YAML nesting deeper than 64 levels; frontmatter is a few flat keys and short lists, so flatten this value`,
    ]);
    const map = planMd({ id: '01-01', extra: `metadata: ${'{a: '.repeat(5_000)}1${'}'.repeat(5_000)}` });
    expect(loadSpec(withPlan(map)).problems.map((p) => p.code)).toEqual(['too-deep']);
  });

  it('brackets inside quoted strings and comments do not count', () => {
    const text = planMd({ id: '01-01', extra: `metadata: { note: "${'['.repeat(200)}" } # ${'{'.repeat(200)}` });
    expect(problemsOf(withPlan(text))).toEqual([]);
  });
});

describe('hostile specs: the opening fence', () => {
  for (const language of ['js', 'javascript', 'coffee', 'toml', 'yaml', 'JSON']) {
    it(`"---${language}" is refused, never handed to another parser`, () => {
      const text = planMd({ id: '01-01' }).replace(/^---\n/, `---${language}\n`);
      expect(problemsOf(withPlan(text))).toEqual([
        `${PLAN}:1: the frontmatter fence names a language ("---${language}"); harness reads YAML only: make the first line exactly "---"`,
      ]);
    });
  }
});

describe('hostile specs: work that grew faster than the input', () => {
  it('a ROADMAP heading with a 1 MiB run of spaces is read at once', () => {
    const roadmap = `# Roadmap\n\n### Phase 1: Foundation${' '.repeat(1_000_000)}x\n\n### Phase 2:   Spaced out   \n`;
    const loaded = loadSpec(specOf([{ id: '01-01' }, { id: '02-01' }], { 'ROADMAP.md': roadmap }));
    expect(loaded.spec?.phases.map((p) => p.title)).toEqual([`Foundation${' '.repeat(1_000_000)}x`, 'Spaced out']);
  });

  it('thousands of unknown dependencies are reported twenty to a plan, then counted', () => {
    const unknown = Array.from({ length: 2_500 }, (_, i) => `02-${String(i + 1).padStart(3, '0')}`);
    const plans = Array.from({ length: 40 }, (_, i) => ({ id: `01-${String(i + 1).padStart(2, '0')}`, dependsOn: unknown }));
    const problems = loadSpec(specOf(plans)).problems.filter((p) => p.file === planPath('01-07'));
    expect(problems).toHaveLength(21);
    expect(problems[0]!.message).toBe('depends_on "02-001" is not a plan in this spec; did you mean "01-01"?');
    expect(problems.at(-1)!.message).toBe(
      'depends_on lists 2480 more plans that are not in this spec (2500 in all; the first 20 are reported above); depend only on plans of this spec',
    );
  });

  it('a 30,000-digit plan id is refused by its form; "did you mean" never measures it', () => {
    const digits = '7'.repeat(30_000);
    const loaded = loadSpec(
      specFiles({
        'SPEC.md': SPEC_MD,
        [PLAN]: planMd({ id: `01-${digits}`, title: 'Big', filesModified: ['src/big.ts'] }),
        [planPath('01-02')]: planMd({ id: '01-02', dependsOn: [`01-${digits}8`] }),
      }),
    );
    expect(loaded.problems.map((p) => [p.file, p.line, p.code])).toEqual([
      [PLAN, 2, 'field-value'],
      [planPath('01-02'), 4, 'field-value'],
    ]);
    expect(suggest('9'.repeat(30_000), ['9'.repeat(29_999)])).toBeUndefined();
    expect(suggest('01-0l', ['01-01', '01-02'])).toBe('01-01');
  });
});

describe('hostile specs: titles', () => {
  it('a NUL or an escape in a quoted title is refused, and shown escaped', () => {
    expect(problemsOf(withPlan(planMd({ id: '01-01', title: '"Login\\0 endpoint\\e[2J"' })))).toEqual([
      `${PLAN}:3: title is "Login\\u0000 endpoint\\u001b[2J"; it must be one line of text, without line breaks, control characters or format characters (bidi controls such as U+202E, zero-width characters such as U+200B)`,
    ]);
  });

  it('a multi-line title is refused: it would become lines of a commit message', () => {
    expect(problemsOf(withPlan(planMd({ id: '01-01', title: '"Login\\n\\nPlan: 09-99"' })))).toEqual([
      `${PLAN}:3: title is "Login\\u000a\\u000aPlan: 09-99"; it must be one line of text, without line breaks, control characters or format characters (bidi controls such as U+202E, zero-width characters such as U+200B)`,
    ]);
    const spec = '---\nid: SPC-042\ntitle: "Reset\\rPlan: 01-01"\n---\n';
    expect(loadSpec(specFiles({ 'SPEC.md': spec, [PLAN]: planMd({ id: '01-01' }) })).problems.map((p) => [p.file, p.code])).toEqual([
      ['SPEC.md', 'control-character'],
    ]);
  });
});

describe('hostile specs: globs and paths that leave the repository or reach into .git', () => {
  for (const glob of ['./.git/hooks/*', '.GIT/config', '{..,x}/**', '@(..)/x', '*(..)/x', 'x/{.git,y}/z', '.gi[t]/config', 'src/../../etc/*']) {
    it(`refuses ${glob}`, () => {
      expect(checkRepoPath(glob, 'glob').ok).toBe(false);
      const problems = loadSpec(specOf([{ id: '01-01', filesModified: [glob] }])).problems;
      expect(problems.map((p) => [p.line, p.code])).toEqual([[5, 'path-outside-repo']]);
    });
  }

  for (const glob of ['src/**', '{a,b}/**', '.github/workflows/*', '**/*.md', 'src/!(x).ts', '.*rc', 'a/+(b|c)/d']) {
    it(`accepts ${glob}`, () => expect(checkRepoPath(glob, 'glob')).toEqual({ ok: true }));
  }

  it('refuses a check path inside .git in any case or spelling', () => {
    for (const path of ['./.git/config', '.Git/HEAD', 'sub/.git']) expect(checkRepoPath(path, 'path').ok).toBe(false);
  });
});

describe('hostile specs: roadmap headings', () => {
  it('a phase heading with an escape sequence is refused at its line', () => {
    const roadmap = '# Roadmap\n\n### Phase 1: Found\u001b]0;owned\u0007ation\n';
    const loaded = loadSpec(specOf([{ id: '01-01' }], { 'ROADMAP.md': roadmap }));
    expect(loaded.problems.map((p) => [p.file, p.line, p.code])).toEqual([['ROADMAP.md', 3, 'control-character']]);
  });
});
