import type { RetiredChange, Retirement } from '../knowledge/holdout/retirement.js';
import { knowledgeBranch, knowledgeLabels, type KnowledgeDraft } from './knowledge-draft.js';

/**
 * A retirement as a pull request (docs/knowledge.md, Retirement): one per item,
 * `harness/knowledge/<kind>/retire-<name>`, so that asking again finds it, and a PR a person
 * closed is the answer (the item stays, and is not proposed again). Merging it retires the item;
 * nothing is retired before.
 */

/** The item's name in the branch: the skill's folder, the gene's id, the lesson's path in lessons/. */
export function retirementSlug(item: Pick<Retirement, 'path' | 'kind'>): string {
  const name =
    item.kind === 'skill'
      ? item.path.replace(/^skills\/([^/]+)\/SKILL\.md$/, '$1')
      : item.kind === 'gene'
        ? item.path.replace(/^genes\/(.+)\.gene\.md$/, '$1')
        : item.path
            .replace(/^lessons\//, '')
            .replace(/\.lesson\.md$/, '')
            .replace(/\//g, '-');
  return `retire-${name}`.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100);
}

const WHAT: Readonly<Record<Retirement['kind'], string>> = {
  lesson:
    'The lesson stays where it is, marked `retired` (with why) in its metadata: surfacing passes it over, and reflection still finds it, so its evidence is not drafted into it again.',
  skill: 'The skill moves to `skills-archived/`, with why: it reaches no brief, and is not proposed again.',
  gene: 'The gene becomes `deprecated`, with a History line: it reaches no brief, and decay removes it later.',
};

function at(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix.replace(/\/$/, '')}/${path}`;
}

export function retirementDraft(item: Retirement, change: Extract<RetiredChange, { ok: true }>, prefix: string): KnowledgeDraft {
  const slug = retirementSlug(item);
  return {
    kind: item.kind,
    slug,
    branch: knowledgeBranch(item.kind, slug),
    files: change.files.map((f) => ({ path: at(prefix, f.path), content: f.text })),
    ...(change.deletions.length > 0 ? { deletions: change.deletions.map((d) => at(prefix, d)) } : {}),
    commitMessage: `Retire ${item.kind} ${item.path}: its plans did no better than the held-out ones`,
    title: `harness: retire ${item.kind} ${item.path}`.slice(0, 250),
    labels: knowledgeLabels(item.kind),
    body: [
      `<!-- harness:retire ${item.kind} ${item.path} -->`,
      `The holdout comparison (\`knowledge.holdout\`) proposes to retire the ${item.kind} \`${item.path}\`: ${item.reason}.`,
      '',
      WHAT[item.kind],
      '',
      "How to read it: the interval is where the true difference in first-attempt pass rate lies, with 95% confidence (Newcombe's method); an upper bound at or below zero means the plans it was surfaced into did not pass more often than the plans that ran without knowledge. Its plans are the ones it was surfaced into, which may be harder than most: read the item before deciding.",
      '',
      'Merge this pull request to retire it. Close it to keep it: it is not proposed again.',
    ].join('\n'),
  };
}
