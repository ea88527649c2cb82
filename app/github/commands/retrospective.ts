import { KNOWLEDGE_ROOT, knowledgeBranch, knowledgeLabels, projectName, type KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { signalsBranch } from '../../engine/forge/signals-pr.js';
import type { Command } from '../../engine/forge/command.js';
import { readLesson, type LessonRecord } from '../../engine/knowledge/lessons/lesson-record.js';
import { readSignal, type SignalRecord } from '../../engine/knowledge/signals/signal-record.js';
import { retrospectiveText } from '../../engine/knowledge/skills/skill-audit-text.js';
import { skillCandidates, type SkillCandidate } from '../../engine/knowledge/skills/skill-candidate.js';
import { extractSkills, type Extraction } from '../../engine/knowledge/skills/skill-extraction.js';
import { knownEntries } from '../../engine/knowledge/skills/skill-known.js';
import { REVIEWS_SLUG } from '../../engine/knowledge/skills/skill-review.js';
import { extractionEvents } from '../../engine/knowledge/skills/skill-trajectory.js';
import { appendTrajectory, trajectoryPath } from '../../engine/knowledge/documents/trajectory.js';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { makeSafe } from '../../machine/content-safety.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import { loadTemplate } from '../../machine/templates.js';
import { agentEnvironment, appSafety } from '../knowledge/app-safety.js';
import { knowledgeStore, storeLabel, type KnowledgeStore } from '../knowledge/knowledge-store.js';
import { readStoreFolders, type GitHubStoreRead } from '../knowledge/skill-store-github.js';
import { resolveSpec, type Invocation } from './invocation.js';
import { holdoutOnGitHub } from '../knowledge/holdout.js';
import { holdoutText } from '../../engine/knowledge/holdout/report-text.js';
import { DEFAULT_HOLDOUT_SEED } from '../../engine/knowledge/holdout/holdout.js';

/** Skill PRs one retrospective opens at most: reviewers take a few at a time; asking again offers the rest. */
export const MAX_SKILL_PRS = 5;

/** The signal types a skill candidate is made of (skill-candidate.ts): failures, their repair, what agents reported. */
const CANDIDATE_SIGNALS = /-(?:repair|struggle|stuck|timeout|innovation|pattern)\.signal\.md$/;

/** The store's folder in the repository it is in: `.harness/knowledge` here, the root of a knowledge repository. */
export function storeRootOf(store: KnowledgeStore, inv: Invocation): string {
  return store.github === inv.github ? KNOWLEDGE_ROOT : '';
}

/**
 * `/harness retrospective [SPEC | [SPEC/]PLAN]` (docs/design.md, Skills; docs/knowledge.md, The holdout): the spec's run reviewed for skills,
 * as `harness retrospective` does it: the candidates in its signals (on its signals branch while
 * that is open, else as merged) and the store's lessons, each through the four gates by
 * harness's rules, duplicates of a lesson, skill (active or archived) or decision linked. Each
 * extracted skill becomes its pull request (`harness/knowledge/skill/<name>`, at most
 * MAX_SKILL_PRS a time; asking again finds those open), and one `extraction` line per candidate
 * goes onto the rolling skill-reviews PR. The answer shows every candidate with each gate's
 * verdict, extracted and skipped alike, then the holdout report over the store as merged, each
 * retirement it proposes a pull request of its own (knowledge/holdout.ts).
 */
export async function retrospective(inv: Invocation, command: Extract<Command, { name: 'retrospective' }>): Promise<string> {
  const asked = command.plan;
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness retrospective ${asked === undefined ? spec : `${spec}/${asked}`}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const config = await inv.config();
  const store = await knowledgeStore(config, inv.context.octokit.request, { github: inv.github, base: inv.defaultBranch });
  const result = await retrospectOnGitHub({
    store,
    root: storeRootOf(store, inv),
    project: projectName(inv.github.repo.repo),
    spec,
    config,
    now: inv.now(),
    origin: `github:retrospective:${spec}`,
    ...(asked !== undefined ? { requested: { plan: asked, by: `/harness retrospective ${spec}/${asked}` } } : {}),
  });
  const extracted = result.extractions.filter((e) => e.decision === 'extracted').length;
  // The holdout, over the whole store as merged: what knowledge did for the plans it was offered to, and what did no better.
  const holdout = await holdoutOnGitHub({ store, root: storeRootOf(store, inv), now: inv.now(), safety: appSafety(process.env, process.cwd()) });
  const answer = [
    ...(asked !== undefined && result.extractions.length === 0
      ? [`${spec}'s run has no repair of plan ${asked} on record to make a skill of: a skill comes from a plan that failed and was then put right.`, '']
      : []),
    '```',
    retrospectiveText(result.extractions, { store: storeLabel(store, inv.github), dryRun: false, spec })
      .replace(/\n+Written into [^\n]*\n?$/, '')
      .trimEnd(),
    '```',
    ...(result.opened.length > 0
      ? ['', 'Skill pull requests (merge to approve; close with a comment saying why to reject):', ...result.opened.map((o) => `- \`${o.name}\`: ${o.url}`)]
      : []),
    ...(extracted > result.opened.length ? ['', `${extracted - result.opened.length} more extracted; ask again once these are reviewed.`] : []),
    ...(result.limited ? ['', 'Only the newest signals were read.'] : []),
    '',
    '```',
    holdoutText(holdout.report, { fraction: config.knowledge.holdout, seed: config.knowledge.holdout_seed ?? DEFAULT_HOLDOUT_SEED }).trimEnd(),
    '```',
    ...(holdout.opened.length > 0
      ? [
          '',
          'Retirement pull requests (merge to retire; close to keep it, and it is not proposed again):',
          ...holdout.opened.map((o) => `- \`${o.path}\`: ${o.url}`),
        ]
      : []),
    ...(holdout.more > 0 ? ['', `${holdout.more} more to retire; ask again once these are reviewed.`] : []),
    ...(holdout.limited ? ['', `Only the newest signals were read for the holdout: its figures count those.`] : []),
  ].join('\n');
  return (await makeSafe(answer, appSafety(process.env, process.cwd()))).text;
}

export interface GitHubRetrospectiveInput {
  store: KnowledgeStore;
  /** The store's folder in its repository (storeRootOf). */
  root: string;
  project: string;
  spec: string;
  /** Only these plans' candidates: extraction after a phase passes. */
  plans?: readonly string[];
  /** A person (a writer: commands are) asked for a skill from this plan's repair though it did not recur: only its candidates, the reusability gate passed by the request. */
  requested?: { plan: string; by: string };
  config: HarnessConfig;
  now: Date;
  /** Where it ran, for the extraction lines' keys: the same origin logs a candidate once. */
  origin: string;
}

export interface GitHubRetrospective {
  extractions: Extraction[];
  opened: { name: string; url: string }[];
  limited: boolean;
}

/**
 * A spec's run reviewed for skills on GitHub, as `harness retrospective` does it: the candidates
 * in its signals (on its signals branch while that is open, else as merged) and the store's
 * lessons, each through the four gates (the reflector agent judges where knowledge.reflect.agent
 * configures one, as for /harness reflect; else harness's rules), duplicates of a lesson, skill
 * (active or archived) or decision linked. Each extracted skill becomes its pull request
 * (`harness/knowledge/skill/<name>`, at most MAX_SKILL_PRS a time; asking again finds those
 * open), and one `extraction` line per candidate goes onto the rolling skill-reviews PR.
 */
export async function retrospectOnGitHub(input: GitHubRetrospectiveInput): Promise<GitHubRetrospective> {
  const { store, root, project, spec, config, now } = input;
  const safety = appSafety(process.env, process.cwd());
  const prefix = root === '' ? '' : `${root}/`;
  const branch = signalsBranch(spec, project, root === '');
  const signalsRef = (await store.github.branchSha(branch)) === undefined ? store.base : branch;
  const run = await readStoreFolders(store.github, signalsRef, ['signals'], (p) => CANDIDATE_SIGNALS.test(p), root);
  const merged = await readStoreFolders(
    store.github,
    store.base,
    ['lessons', 'skills', 'skills-archived', 'spikes'],
    (p) => /\.lesson\.md$|\/SKILL\.md$|\/DECISION\.md$/.test(p),
    root,
  );
  const candidates = candidatesOf(input, run.files, merged.files);
  const reflector = configuredReflector(config, { cwd: process.cwd(), env: agentEnvironment(process.env) });
  const extractions = await extractSkills({
    candidates,
    known: knownEntries(merged.files),
    template: await loadTemplate('skill/SKILL.md'),
    day: now.toISOString().slice(0, 10),
    ...(reflector ? { judge: { agent: reflector, instructions: await loadTemplate('agents/skill-judge.md'), source: 'templates/agents/skill-judge.md' } } : {}),
  });
  const opened: { name: string; url: string }[] = [];
  for (const x of extractions.filter((e) => e.decision === 'extracted' && e.path && e.text).slice(0, MAX_SKILL_PRS)) {
    const pr = await store.github.openKnowledgePr(await skillDraft(x, prefix, spec, safety), store.base);
    opened.push({ name: x.name, url: pr.url });
  }
  if (extractions.length > 0) await logExtractions(input, extractions, safety);
  return { extractions, opened, limited: run.limited.length > 0 };
}

/**
 * The skill candidates in the run's signals and the store's lessons: only the plans asked for
 * (input.plans), or only the requested plan's, marked as requested.
 */
function candidatesOf(input: GitHubRetrospectiveInput, runFiles: GitHubStoreRead['files'], mergedFiles: GitHubStoreRead['files']): SkillCandidate[] {
  const prefix = input.root === '' ? '' : `${input.root}/`;
  const signals: SignalRecord[] = [];
  for (const f of runFiles) {
    const read = readSignal(`${prefix}${f.path}`, f.text);
    if (!('problem' in read)) signals.push(read);
  }
  const lessons: LessonRecord[] = [];
  for (const f of mergedFiles.filter((x) => x.path.startsWith('lessons/'))) {
    const read = readLesson(`${prefix}${f.path}`, f.text);
    if (!('problem' in read)) lessons.push(read);
  }
  let candidates = skillCandidates({ signals, lessons, spec: input.spec, lessonEvidence: input.config.knowledge.skills.lesson_evidence });
  if (input.plans) candidates = candidates.filter((c) => c.plan !== undefined && input.plans!.includes(c.plan));
  const requested = input.requested;
  if (requested) candidates = candidates.filter((c) => c.plan === requested.plan).map((c) => ({ ...c, requested: requested.by }));
  return candidates;
}

/** One `extraction` line per candidate onto the rolling skill-reviews PR (made safe). */
async function logExtractions(input: GitHubRetrospectiveInput, extractions: Extraction[], safety: ReturnType<typeof appSafety>): Promise<void> {
  const { store, root, project, spec, now } = input;
  const events = extractionEvents(extractions, { at: now, project, origin: input.origin });
  const log = trajectoryPath(now);
  await store.github.appendKnowledge({
    branch: knowledgeBranch('signal', REVIEWS_SLUG),
    base: store.base,
    root,
    commitMessage: `skills: retrospective of ${spec}, ${extractions.length} candidate(s)`,
    pr: {
      title: 'Skill reviews: approvals, rejections and the archive',
      body: 'The trajectory of skills: extractions with their gates, approvals, rejections, and rejected skills kept in `skills-archived/`. Merge this as you merge signals; nothing in it reaches an agent.',
      labels: knowledgeLabels('skill'),
    },
    build: async (at) => {
      const text = appendTrajectory(await at.read(log), events);
      return text === undefined ? [] : [{ path: log, text: (await makeSafe(text, safety)).text }];
    },
  });
}

async function skillDraft(x: Extraction, prefix: string, spec: string, safety: ReturnType<typeof appSafety>): Promise<KnowledgeDraft> {
  const safe = async (t: string) => (await makeSafe(t, safety)).text;
  const gates = x.verdicts.map((v) => `- ${v.pass ? 'PASS' : 'FAIL'} ${v.gate}: ${v.reason}`).join('\n');
  return {
    kind: 'skill',
    slug: x.name,
    branch: knowledgeBranch('skill', x.name),
    files: [{ path: `${prefix}${x.path!}`, content: await safe(x.text!) }],
    commitMessage: await safe(`skill: ${x.name}\n\nExtracted from ${spec}'s run by /harness retrospective.`),
    title: await safe(`Skill: ${x.name}`),
    body: await safe(
      `A skill extracted from ${spec}'s run (${x.candidate.source} ${x.candidate.plan ?? ''}), through the four gates:\n\n${gates}\n\nEvidence:\n${x.candidate.evidence.map((e) => `- \`${e}\``).join('\n')}\n\nMerge to approve it: agents get it from then on. Close it with a comment saying why to reject it: harness keeps it in skills-archived/ with your reason and does not propose it again.`,
    ),
    labels: knowledgeLabels('skill'),
  };
}
