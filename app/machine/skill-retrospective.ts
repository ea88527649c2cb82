import { join } from 'node:path';
import { agentOverridePath } from '../engine/core/agents/overrides.js';
import type { HarnessConfig } from '../engine/core/config/schema.js';
import { skillCandidates } from '../engine/knowledge/skills/skill-candidate.js';
import { extractSkills, type Extraction } from '../engine/knowledge/skills/skill-extraction.js';
import { knownEntries } from '../engine/knowledge/skills/skill-known.js';
import { extractionEvents } from '../engine/knowledge/skills/skill-trajectory.js';
import { appendTrajectory, trajectoryPath } from '../engine/knowledge/documents/trajectory.js';
import type { Reflector } from '../engine/knowledge/lessons/reflector.js';
import type { Unreadable } from '../engine/knowledge/signals/signal-record.js';
import type { SafetyOptions } from './content-safety.js';
import { readTextIfExists } from './files.js';
import { readKnowledgeStore, writeKnowledgeFiles, type WrittenFile } from './knowledge-store.js';
import { storePrefix } from './local-reflection.js';
import { readReflectionStore } from './reflection-store.js';
import { loadTemplate } from './templates.js';

/** A repository's own judge instructions, which replace templates/agents/skill-judge.md. */
export const JUDGE_OVERRIDE = agentOverridePath('skill-judge');

export async function judgeInstructions(root: string): Promise<{ instructions: string; source: string }> {
  const own = await readTextIfExists(join(root, JUDGE_OVERRIDE));
  if (own !== undefined) return { instructions: own, source: JUDGE_OVERRIDE };
  return { instructions: await loadTemplate('agents/skill-judge.md'), source: 'templates/agents/skill-judge.md' };
}

export interface RetrospectiveOptions {
  store: string;
  root: string;
  config: HarnessConfig;
  now: Date;
  /** Only this spec's run; the whole store when absent. */
  spec?: string;
  /** Only these plans' candidates (extraction after a plan or phase is verified). */
  plans?: readonly string[];
  /** A person asked for a skill from this plan's repair (`harness retrospective --plan`): it need not have recurred. */
  requested?: string;
  judge?: Reflector;
  /** Write the extracted skills and the trajectory lines into the store. */
  write: boolean;
  /** The project, for the trajectory lines, and where this ran (their keys). */
  project: string;
  origin: string;
  safety: SafetyOptions;
}

export interface Retrospective {
  extractions: Extraction[];
  unreadable: Unreadable[];
  written: WrittenFile[];
}

/**
 * A retrospective on a store on this machine (`harness retrospective`, and extraction when a
 * plan or phase is verified in `harness run`): the candidates in the run's signals and the
 * lessons through the four gates, each extracted skill written as skills/<name>/SKILL.md and
 * one `extraction` line per candidate appended to the day's trajectory file, every file
 * through the content-safety pass. The skills are proposals: they count once the person
 * reviews and commits (or merges) them.
 */
export async function retrospectLocally(o: RetrospectiveOptions): Promise<Retrospective> {
  const prefix = storePrefix(o.root, o.store);
  const [read, all] = await Promise.all([readReflectionStore(o.store, prefix), readKnowledgeStore(o.store)]);
  let candidates = skillCandidates({
    signals: read.signals,
    lessons: read.lessons,
    ...(o.spec ? { spec: o.spec } : {}),
    lessonEvidence: o.config.knowledge.skills.lesson_evidence,
  });
  if (o.plans) candidates = candidates.filter((c) => c.plan !== undefined && o.plans!.includes(c.plan));
  if (o.requested !== undefined)
    candidates = candidates.filter((c) => c.plan === o.requested).map((c) => ({ ...c, requested: `harness retrospective --plan ${o.requested}` }));
  const extractions = await extractSkills({
    candidates,
    known: knownEntries(all.files),
    template: await loadTemplate('skill/SKILL.md'),
    day: o.now.toISOString().slice(0, 10),
    ...(o.judge ? { judge: { agent: o.judge, ...(await judgeInstructions(o.root)) } } : {}),
  });
  const unreadable = [...read.unreadableSignals, ...read.unreadableLessons.map(({ file, line, problem }) => ({ file, line, problem }))];
  if (!o.write || extractions.length === 0) return { extractions, unreadable, written: [] };
  return { extractions, unreadable, written: await writeExtractions(o, extractions) };
}

/**
 * Write what a retrospective extracted: each extracted skill's SKILL.md, and one `extraction`
 * line per candidate in the day's trajectory file as it is now (read again, so a writer that
 * took turns with others appends to what they wrote). Paths are the repository's.
 */
export async function writeExtractions(
  o: Pick<RetrospectiveOptions, 'store' | 'root' | 'now' | 'project' | 'origin' | 'safety'>,
  extractions: readonly Extraction[],
): Promise<WrittenFile[]> {
  if (extractions.length === 0) return [];
  const prefix = storePrefix(o.root, o.store);
  const path = trajectoryPath(o.now);
  const trajectory = appendTrajectory(
    await readTextIfExists(join(o.store, path)),
    extractionEvents(extractions, { at: o.now, project: o.project, origin: o.origin }),
  );
  const files = [
    ...extractions.flatMap((x) => (x.path && x.text ? [{ path: x.path, text: x.text }] : [])),
    ...(trajectory ? [{ path, text: trajectory }] : []),
  ];
  return (await writeKnowledgeFiles(o.store, files, o.safety)).map((w) => ({ ...w, path: `${prefix}${w.path}` }));
}
