import { KNOWLEDGE_ROOT, knowledgeBranch, knowledgeLabels, projectName, type KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { signalsBranch } from '../../engine/forge/signals-pr.js';
import type { Command } from '../../engine/forge/command.js';
import { readLesson, type LessonRecord } from '../../engine/knowledge/lesson-record.js';
import { readSignal, type SignalRecord } from '../../engine/knowledge/signal-record.js';
import { retrospectiveText } from '../../engine/knowledge/skill-audit-text.js';
import { skillCandidates } from '../../engine/knowledge/skill-candidate.js';
import { extractSkills, type Extraction } from '../../engine/knowledge/skill-extraction.js';
import { knownEntries } from '../../engine/knowledge/skill-known.js';
import { REVIEWS_SLUG } from '../../engine/knowledge/skill-review.js';
import { extractionEvents } from '../../engine/knowledge/skill-trajectory.js';
import { appendTrajectory, trajectoryPath } from '../../engine/knowledge/trajectory.js';
import { makeSafe } from '../../machine/content-safety.js';
import { loadTemplate } from '../../machine/templates.js';
import { appSafety } from '../knowledge/app-safety.js';
import { knowledgeStore, storeLabel, type KnowledgeStore } from '../knowledge/knowledge-store.js';
import { readStoreFolders } from '../knowledge/skill-store-github.js';
import { resolveSpec, type Invocation } from './invocation.js';

/** Skill PRs one retrospective opens at most: reviewers take a few at a time; asking again offers the rest. */
export const MAX_SKILL_PRS = 5;

/** The signal types a skill candidate is made of (skill-candidate.ts): failures, their repair, what agents reported. */
const CANDIDATE_SIGNALS = /-(?:repair|struggle|stuck|timeout|innovation|pattern)\.signal\.md$/;

/** The store's folder in the repository it is in: `.harness/knowledge` here, the root of a knowledge repository. */
export function storeRootOf(store: KnowledgeStore, inv: Invocation): string {
  return store.github === inv.github ? KNOWLEDGE_ROOT : '';
}

/**
 * `/harness retrospective [SPEC]` (docs/design.md, Skills): the spec's run reviewed for skills,
 * as `harness retrospective` does it: the candidates in its signals (on its signals branch while
 * that is open, else as merged) and the store's lessons, each through the four gates by
 * harness's rules, duplicates of a lesson, skill (active or archived) or decision linked. Each
 * extracted skill becomes its pull request (`harness/knowledge/skill/<name>`, at most
 * MAX_SKILL_PRS a time; asking again finds those open), and one `extraction` line per candidate
 * goes onto the rolling skill-reviews PR. The answer shows every candidate with each gate's
 * verdict, extracted and skipped alike.
 */
export async function retrospective(inv: Invocation, command: Extract<Command, { name: 'retrospective' }>): Promise<string> {
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness retrospective ${spec}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const config = await inv.config();
  const safety = appSafety(process.env, process.cwd());
  const store = await knowledgeStore(config, inv.context.octokit.request, { github: inv.github, base: inv.defaultBranch });
  const root = storeRootOf(store, inv);
  const prefix = root === '' ? '' : `${root}/`;
  const project = projectName(inv.github.repo.repo);
  const signalsRef = (await store.github.branchSha(signalsBranch(spec, project, root === ''))) === undefined ? store.base : signalsBranch(spec, project, root === '');
  const run = await readStoreFolders(store.github, signalsRef, ['signals'], (p) => CANDIDATE_SIGNALS.test(p), root);
  const merged = await readStoreFolders(store.github, store.base, ['lessons', 'skills', 'skills-archived', 'spikes'], (p) => /\.lesson\.md$|\/SKILL\.md$|\/DECISION\.md$/.test(p), root);
  const signals: SignalRecord[] = [];
  for (const f of run.files) {
    const read = readSignal(`${prefix}${f.path}`, f.text);
    if (!('problem' in read)) signals.push(read);
  }
  const lessons: LessonRecord[] = [];
  for (const f of merged.files.filter((x) => x.path.startsWith('lessons/'))) {
    const read = readLesson(`${prefix}${f.path}`, f.text);
    if (!('problem' in read)) lessons.push(read);
  }
  const now = inv.now();
  const extractions = await extractSkills({
    candidates: skillCandidates({ signals, lessons, spec, lessonEvidence: config.knowledge.skills.lesson_evidence }),
    known: knownEntries(merged.files),
    template: await loadTemplate('skill/SKILL.md'),
    day: now.toISOString().slice(0, 10),
  });
  const opened: string[] = [];
  for (const x of extractions.filter((e) => e.decision === 'extracted' && e.path && e.text).slice(0, MAX_SKILL_PRS)) {
    const pr = await store.github.openKnowledgePr(await skillDraft(x, prefix, spec, safety), store.base);
    opened.push(`- \`${x.name}\`: ${pr.url}`);
  }
  if (extractions.length > 0) {
    const events = extractionEvents(extractions, { at: now, project, origin: `github:retrospective:${spec}` });
    const log = trajectoryPath(now);
    await store.github.appendKnowledge({
      branch: knowledgeBranch('signal', REVIEWS_SLUG),
      base: store.base,
      root,
      commitMessage: `skills: retrospective of ${spec}, ${extractions.length} candidate(s)`,
      pr: { title: 'Skill reviews: approvals, rejections and the archive', body: 'The trajectory of skills: extractions with their gates, approvals, rejections, and rejected skills kept in `skills-archived/`. Merge this as you merge signals; nothing in it reaches an agent.', labels: knowledgeLabels('skill') },
      build: async (at) => {
        const text = appendTrajectory(await at.read(log), events);
        return text === undefined ? [] : [{ path: log, text: (await makeSafe(text, safety)).text }];
      },
    });
  }
  const extracted = extractions.filter((e) => e.decision === 'extracted').length;
  const answer = [
    '```',
    retrospectiveText(extractions, { store: storeLabel(store, inv.github), dryRun: false, spec }).replace(/\n+Written into [^\n]*\n?$/, '').trimEnd(),
    '```',
    ...(opened.length > 0 ? ['', 'Skill pull requests (merge to approve; close with a comment saying why to reject):', ...opened] : []),
    ...(extracted > opened.length ? ['', `${extracted - opened.length} more extracted; ask again once these are reviewed.`] : []),
    ...(run.limited.length > 0 ? ['', 'Only the newest signals were read.'] : []),
  ].join('\n');
  return (await makeSafe(answer, safety)).text;
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
    body: await safe(`A skill extracted from ${spec}'s run (${x.candidate.source} ${x.candidate.plan ?? ''}), through the four gates:\n\n${gates}\n\nEvidence:\n${x.candidate.evidence.map((e) => `- \`${e}\``).join('\n')}\n\nMerge to approve it: agents get it from then on. Close it with a comment saying why to reject it: harness keeps it in skills-archived/ with your reason and does not propose it again.`),
    labels: knowledgeLabels('skill'),
  };
}
