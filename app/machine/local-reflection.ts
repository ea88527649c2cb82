import { join, relative, sep } from 'node:path';
import { agentOverridePath } from '../engine/core/agents/overrides.js';
import type { HarnessConfig } from '../engine/core/config/schema.js';
import { distill, NO_REFLECTOR, type LessonChange } from '../engine/knowledge/lessons/distill.js';
import { DEFAULT_SIMILARITY, reflect, type ReflectSettings, type Skipped } from '../engine/knowledge/lessons/reflect.js';
import type { Reflector } from '../engine/knowledge/lessons/reflector.js';
import type { Unreadable } from '../engine/knowledge/signals/signal-record.js';
import type { SafetyOptions } from './content-safety.js';
import { readTextIfExists } from './files.js';
import { writeKnowledgeFiles, type WrittenFile } from './knowledge-store.js';
import { readReflectionStore } from './reflection-store.js';
import { loadTemplate } from './templates.js';

/** A repository's own reflector instructions, which replace templates/agents/reflector.md. */
export const REFLECTOR_OVERRIDE = agentOverridePath('reflector');

/** The thresholds of `.github/harness.yml` (knowledge.reflect) as the engine takes them. */
export function reflectSettings(config: HarnessConfig): ReflectSettings {
  const r = config.knowledge.reflect;
  return { minWeight: r.min_weight, minPlans: r.min_plans, similarity: r.similarity ?? DEFAULT_SIMILARITY };
}

/** The reflector's instructions: the repository's own when it has them, else harness's; with where they came from. */
export async function reflectorInstructions(root: string): Promise<{ instructions: string; source: string }> {
  const own = await readTextIfExists(join(root, REFLECTOR_OVERRIDE));
  if (own !== undefined) return { instructions: own, source: REFLECTOR_OVERRIDE };
  return { instructions: await loadTemplate('agents/reflector.md'), source: 'templates/agents/reflector.md' };
}

export interface LocalReflectionOptions {
  /** The knowledge store (absolute). */
  store: string;
  /** The repository root (absolute): paths are given relative to it. */
  root: string;
  config: HarnessConfig;
  today: Date;
  /** The reflector agent; without one, harness drafts the lessons. */
  reflector?: Reflector;
  /** Why there is no agent, for the note under each draft (a dry run, none configured). */
  withoutAgent?: string;
  /** Write the new and updated lessons into the store (through the content-safety pass). */
  write: boolean;
  safety: SafetyOptions;
}

export interface LocalReflection {
  changes: LessonChange[];
  skipped: Skipped[];
  /** Lesson files that could not be read (their signals stay taken). */
  unreadableLessons: Unreadable[];
  unreadableSignals: Unreadable[];
  /** The files written, relative to the repository root, with what each had redacted. */
  written: WrittenFile[];
}

/** The store's place in the repository as lessons cite it: `.harness/knowledge/`, or '' when the store is the root. */
export function storePrefix(root: string, store: string): string {
  const rel = relative(root, store).split(sep).join('/');
  if (rel === '' || rel.startsWith('..')) return '';
  return `${rel}/`;
}

/**
 * The lessons of a reflection written into its store, each through the content-safety pass;
 * the paths returned are the repository's, as the changes give them.
 */
export async function writeLessons(
  options: Pick<LocalReflectionOptions, 'store' | 'root' | 'safety'>,
  changes: readonly LessonChange[],
): Promise<WrittenFile[]> {
  if (changes.length === 0) return [];
  const prefix = storePrefix(options.root, options.store);
  const files = changes.map((c) => ({ path: c.path.slice(prefix.length), text: c.content }));
  return (await writeKnowledgeFiles(options.store, files, options.safety)).map((w) => ({ ...w, path: `${prefix}${w.path}` }));
}

/**
 * Reflection on a store on this machine: read it, find the patterns, distil them (with the
 * reflector when there is one) and, unless it is a dry run, write the lessons into the store.
 */
export async function reflectLocally(options: LocalReflectionOptions): Promise<LocalReflection> {
  const prefix = storePrefix(options.root, options.store);
  const store = await readReflectionStore(options.store, prefix);
  const reflection = reflect({
    signals: store.signals,
    lessons: store.lessons,
    unreadable: store.unreadableSignals,
    unreadableLessons: store.unreadableLessons,
    settings: reflectSettings(options.config),
  });
  const taken = new Set([...store.lessons.map((l) => l.file), ...store.unreadableLessons.map((l) => l.file)]);
  const changes = await distill({
    reflection,
    template: await loadTemplate('lesson.md'),
    storePrefix: prefix,
    today: options.today,
    taken,
    ...(options.reflector ? { reflector: { agent: options.reflector, ...(await reflectorInstructions(options.root)) } } : {}),
    withoutAgent: options.withoutAgent ?? NO_REFLECTOR,
  });
  const written = options.write ? await writeLessons(options, changes) : [];
  return {
    changes,
    skipped: reflection.skipped,
    unreadableLessons: store.unreadableLessons.map(({ file, line, problem }) => ({ file, line, problem })),
    unreadableSignals: store.unreadableSignals,
    written,
  };
}
