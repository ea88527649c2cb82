/**
 * How the learning bench judges what the pipeline learned: which kinds an item (a lesson, a
 * skill) is about, whether it names a kind's fix, and what was surfaced where. Its patterns are
 * the kinds' `error` and `names` (world.ts), never the stand-in agent's tokens.
 */
import type { Kind, ProjectDef, Remedy } from './world.js';

/** What an item says, for judging: its text before its `## Evidence` section (a skill has none: all of it). */
export function judgedText(text: string): string {
  const evidence = text.search(/^## Evidence\b/m);
  return evidence === -1 ? text : text.slice(0, evidence);
}

export function allKinds(def: ProjectDef): Kind[] {
  return [...def.kinds, ...def.oneOffs];
}

/** The kinds (recurring and one-off) whose error an item names; both wordings of the two-wordings kind are its one kind. */
export function kindsOf(def: ProjectDef, text: string): string[] {
  const judged = judgedText(text);
  return allKinds(def)
    .filter((k) => k.error.test(judged))
    .map((k) => k.id);
}

export function names(remedy: Remedy | undefined, text: string): boolean {
  if (!remedy) return false;
  const judged = judgedText(text);
  return remedy.names.every((re) => re.test(judged));
}

/** An item about the stale kind that gives its old fix and not the new one. */
export function staleAdvice(def: ProjectDef, text: string): boolean {
  const stale = def.kinds.find((k) => k.old);
  if (!stale) return false;
  return kindsOf(def, text).includes(stale.id) && names(stale.old, text) && !names(stale.fix, text);
}

export interface Item {
  path: string;
  kinds: string[];
  /** The recurring kinds whose (current) fix it names. */
  fixes: string[];
  /** It gives the counter-intuitive kind's obvious repair. */
  obvious: boolean;
  /** It gives the stale kind's old fix and not the new one. */
  stale: boolean;
}

export function itemOf(def: ProjectDef, path: string, text: string): Item {
  return {
    path,
    kinds: kindsOf(def, text),
    fixes: def.kinds.filter((k) => names(k.fix, text)).map((k) => k.id),
    obvious: def.kinds.some((k) => k.obvious && names(k.obvious, text)),
    stale: staleAdvice(def, text),
  };
}

/** The item paths an agent was given: `(lesson \`lessons/…\``, one per entry of its brief's knowledge section. */
export function pathsInKnowledge(section: string): { kind: string; path: string }[] {
  const out: { kind: string; path: string }[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('- ')) continue;
    // The entry's own file is named last on its line: `… (lesson \`lessons/…\`, drafted by …)`.
    const m = [...line.matchAll(/\((lesson|skill|gene) `([^`]+)`/g)].at(-1);
    if (m) out.push({ kind: m[1]!, path: m[2]! });
  }
  return out;
}
