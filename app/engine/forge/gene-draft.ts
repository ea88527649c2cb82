import { createHash } from 'node:crypto';
import type { GeneChange } from '../knowledge/genes/decay.js';
import type { GeneCandidate } from '../knowledge/genes/gene-solidify.js';
import { knowledgeBranch, knowledgeLabels, type KnowledgeDraft } from './knowledge-draft.js';

/**
 * Gene PRs (docs/design.md, Genes): every step of a gene's life is one PR a person merges.
 * A new candidate is `harness/knowledge/gene/<id>`; a change of status is
 * `harness/knowledge/gene/<id>-<action>-<hash>`, the hash of the state it starts from (the
 * gene's `updated`), so that the schedule proposing the same change again finds its PR, and
 * the next change after a merge gets a branch of its own. The body's first line is
 * `<!-- harness:gene <action> <path> -->`.
 */

/** The store's folder in the repository: `.harness/knowledge/`, or '' in a knowledge repository. */
function at(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix.replace(/\/$/, '')}/${path}`;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

export function solidifyPrDraft(candidate: GeneCandidate, prefix: string): KnowledgeDraft {
  const evidence = candidate.evidence.map((e) => `- \`${e}\``);
  return {
    kind: 'gene',
    slug: candidate.id,
    branch: knowledgeBranch('gene', candidate.id),
    files: [{ path: at(prefix, candidate.path), content: candidate.text }],
    commitMessage: `Gene candidate ${candidate.id}: ${candidate.name}`,
    title: `harness gene: ${candidate.name}`.slice(0, 250),
    labels: knowledgeLabels('gene'),
    body: [
      `<!-- harness:gene solidify ${candidate.path} -->`,
      `The same failure was repaired in ${candidate.evidence.length} plans, so harness proposes a **candidate gene** (\`${candidate.path}\`) for it: \`${candidate.signature}\`.`,
      '',
      'A candidate is surfaced to plans with a smaller share of the brief than proven knowledge; its own applications, counted from the trajectory, decide whether it is promoted (tier 1: a success rate of at least 70% over at least 2 applications).',
      '',
      "Before merging: write the strategy the repairs had in common into the gene's Content section, and check its constraints and validation commands.",
      '',
      '**Evidence** (the repair signals):',
      '',
      ...evidence,
    ].join('\n'),
  };
}

const VERB: Readonly<Record<GeneChange['action'], string>> = {
  promote: 'Promote',
  deprecate: 'Deprecate',
  demote: 'Demote',
  remove: 'Remove',
};

export function geneChangeDraft(change: GeneChange, prefix: string): KnowledgeDraft {
  const slug = `${change.gene.id}-${change.action}-${hash(change.gene.updated)}`;
  const m = change.metrics;
  const criteria = change.verdict
    ? [
        '',
        `**Tier ${change.verdict.tier}** (GDI ${change.verdict.gdi.toFixed(3)}):`,
        '',
        '| criterion | met | found |',
        '|---|---|---|',
        ...change.verdict.criteria.map((c) => `| ${c.name} | ${c.met ? 'yes' : 'no'} | ${c.detail.replace(/\|/g, '\\|')} |`),
      ]
    : [];
  const review =
    change.verdict?.tier === 3 && change.action === 'promote'
      ? ['', "This is a **tier 3** gene (core workflow): a person's review is part of its promotion. Read the gene and its validation before merging."]
      : [];
  return {
    kind: 'gene',
    slug,
    branch: knowledgeBranch('gene', slug),
    files: change.text === undefined ? [] : [{ path: at(prefix, change.path), content: change.text }],
    ...(change.text === undefined ? { deletions: [at(prefix, change.path)] } : {}),
    commitMessage: `${VERB[change.action]} gene ${change.gene.id}: ${change.from} → ${change.to ?? 'removed'}`,
    title: `harness gene: ${VERB[change.action].toLowerCase()} ${change.gene.name}`.slice(0, 250),
    labels: knowledgeLabels('gene'),
    body: [
      `<!-- harness:gene ${change.action} ${change.path} -->`,
      `${VERB[change.action]} **${change.gene.name}** (\`${change.path}\`): ${change.from} → ${change.to ?? 'removed from the store'}, because ${change.reason}.`,
      '',
      `Its record, from the trajectory${m.from === 'gene' ? " (none here: the figures are the gene's own)" : ''}: ${Math.round(m.successRate * 100)}% of ${m.usageCount} applications verified, ${m.consecutiveSuccesses} successes and ${m.consecutiveFailures} failures in a row at the end, last applied ${m.lastUsed ?? 'never'}.`,
      ...criteria,
      ...review,
      '',
      'Merging this PR makes the change; closing it keeps the gene as it is (the next decay run proposes it again while it still holds).',
    ].join('\n'),
  };
}
