import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { geneChangeDraft, solidifyPrDraft } from '../../engine/forge/gene-draft.js';
import { knowledgeBranch, knowledgeLabels, KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import { decay, type DecayResult } from '../../engine/knowledge/genes/decay.js';
import type { GeneEvent } from '../../engine/knowledge/genes/gene-events.js';
import { geneRead } from './gene-read-github.js';
import { geneSettingsOf } from '../../engine/knowledge/genes/gene-settings.js';
import { solidify, type SolidifyResult } from '../../engine/knowledge/genes/gene-solidify.js';
import { appendTrajectory, trajectoryPath } from '../../engine/knowledge/documents/trajectory.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { KnowledgePr } from '../../gateway/knowledge-pr.js';
import { makeSafe, type SafetyOptions } from '../../machine/content-safety.js';
import { loadTemplate } from '../../machine/templates.js';
import { safeDraft } from './app-safety.js';

/**
 * Gene decay on GitHub (docs/design.md, Genes), on a schedule (templates/workflows/
 * harness-decay.yml runs the app action with `command: decay`): the genes, capsules,
 * trajectory and repair signals merged on the default branch are read through the API, and
 * every new candidate and every change of status is a PR of its own
 * (`harness/knowledge/gene/…`). The trajectory lines of what was proposed collect on one PR,
 * `harness/knowledge/gene/lifecycle`, so that gene PRs never conflict with each other over the
 * day's trajectory file. A change whose PR a person closed is not proposed again from the same
 * state: closing it was the answer.
 */

/** Gene PRs one run opens at most: reviewers take a few at a time; the next run offers the rest. */
export const MAX_GENE_PRS = 10;

export const LIFECYCLE_BRANCH = knowledgeBranch('gene', 'lifecycle');

export type GeneStoreGateway = Pick<Gateway, 'directory' | 'tree' | 'blob'>;

export interface GitHubDecayInput {
  github: GeneStoreGateway & Pick<Gateway, 'openKnowledgePr' | 'appendKnowledge'>;
  base: string;
  config: HarnessConfig;
  now: Date;
  project: string;
  log: { warn(message: string): void };
  safety: SafetyOptions;
}

export interface ProposedGenePr {
  path: string;
  action: 'solidify' | 'promote' | 'deprecate' | 'demote' | 'remove';
  reason: string;
  /** undefined: over this run's limit, left for the next. */
  pr?: KnowledgePr;
}

export interface GitHubDecay {
  store: boolean;
  solidified: SolidifyResult;
  decayed: DecayResult;
  proposed: ProposedGenePr[];
  /** The trajectory lines written for the PRs opened now. */
  events: GeneEvent[];
  problems: { path: string; line: number; message: string }[];
}

export async function decayOnGitHub(input: GitHubDecayInput): Promise<GitHubDecay> {
  const settings = geneSettingsOf(input.config.knowledge.genes);
  const store = await geneRead(input.github, input.base, input.log);
  const empty: GitHubDecay = {
    store: store.present,
    solidified: { candidates: [], waiting: [] },
    decayed: { changes: [], kept: [], problems: [] },
    proposed: [],
    events: [],
    problems: store.problems,
  };
  if (!store.present) return empty;
  const stats = store.stats.result();
  const solidified = solidify({
    signals: store.signals,
    genes: store.genes,
    stats,
    settings,
    template: await loadTemplate('gene.md'),
    now: input.now,
    project: input.project,
  });
  const decayed = decay({ genes: store.genes, capsules: store.capsules, stats, settings, now: input.now, project: input.project });
  const result: GitHubDecay = { ...empty, solidified, decayed, problems: [...store.problems, ...decayed.problems] };

  const work = [
    ...solidified.candidates.map((c) => ({
      path: c.path,
      action: 'solidify' as const,
      reason: c.event.reason,
      event: c.event,
      draft: () => solidifyPrDraft(c, `${KNOWLEDGE_ROOT}/`),
    })),
    ...decayed.changes.map((c) => ({
      path: c.path,
      action: c.action,
      reason: c.reason,
      event: c.event,
      draft: () => geneChangeDraft(c, `${KNOWLEDGE_ROOT}/`),
    })),
  ];
  let opened = 0;
  for (const w of work) {
    if (opened === MAX_GENE_PRS) {
      result.proposed.push({ path: w.path, action: w.action, reason: w.reason });
      continue;
    }
    const pr = await input.github.openKnowledgePr(await safeDraft(w.draft(), input.safety), input.base);
    result.proposed.push({ path: w.path, action: w.action, reason: w.reason, pr });
    if (pr.state === 'opened') {
      opened++;
      result.events.push({ ...w.event, pr: pr.number });
    }
  }
  await logEvents(input, result.events);
  return result;
}

/** The lifecycle lines onto the PR that collects them (the gateway's appendKnowledge), made safe. */
export async function logEvents(input: Pick<GitHubDecayInput, 'github' | 'base' | 'now' | 'safety'>, events: readonly GeneEvent[]): Promise<void> {
  if (events.length === 0) return;
  const day = trajectoryPath(input.now);
  await input.github.appendKnowledge({
    branch: LIFECYCLE_BRANCH,
    base: input.base,
    root: KNOWLEDGE_ROOT,
    commitMessage: `Trajectory: ${events.map((e) => `${e.type} ${e.entry}`).join(', ')}`.slice(0, 500),
    pr: {
      title: 'harness trajectory: gene lifecycle',
      body: 'The trajectory lines of gene and skill changes harness proposed (solidify, promote, deprecate, demote, remove, publish), one JSON line each. Merge it with, or after, the PRs it records.',
      labels: knowledgeLabels('gene'),
    },
    build: async (store) => {
      const text = appendTrajectory(await store.read(day), events);
      return text === undefined ? [] : [{ path: day, text: (await makeSafe(text, input.safety)).text }];
    },
  });
}
