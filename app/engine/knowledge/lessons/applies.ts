import { learnFrom, namedWords, type Learned } from '../documents/conditions.js';
import { profileFeatures, profileOf, type PlanProfile } from '../documents/plan-profile.js';
import type { SignalRecord } from '../signals/signal-record.js';

/**
 * The evidence of when knowledge applies, from the store's signals: each plan's profile (a
 * failure or a repair records its plan's; a verified phase's completion signal records every
 * plan's), and what each plan's brief carried (a failure's `briefed`, a `use` signal's
 * entries). Reflection compares the plans that met a failure with all the others it knows of.
 */

/** A plan, as one place: `project SPC-001 01-02` (the form pattern.ts gives a pattern's places). */
export function placeKey(project: string, spec: string | undefined, plan: string): string {
  return `${project} ${[spec, plan].filter((x) => x !== undefined).join(' ')}`;
}

export interface PlaceEvidence {
  /** Each plan's profile, by place. */
  profiles: Map<string, PlanProfile>;
  /** The knowledge paths each plan's brief carried, by place. */
  briefed: Map<string, Set<string>>;
  /** The errors the items in each plan's brief were about, by place. */
  briefedFor: Map<string, Set<string>>;
  /** Each plan's profile as a set of features, and each feature's plans: what a condition is counted with, once for all. */
  features: Map<string, Set<string>>;
  postings: Map<string, Set<string>>;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The profiles and briefs the signals record, by place; a plan's own failure or repair speaks for it before a completion's list. */
export function placeEvidence(signals: readonly SignalRecord[]): PlaceEvidence {
  const own = new Map<string, PlanProfile>();
  const listed = new Map<string, PlanProfile>();
  const briefed = new Map<string, Set<string>>();
  const briefedFor = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, place: string, values: readonly string[]) => {
    if (values.length === 0) return;
    let set = map.get(place);
    if (!set) map.set(place, (set = new Set()));
    for (const v of values) set.add(v);
  };
  const brief = (place: string, paths: readonly string[]) => add(briefed, place, paths);
  for (const r of signals) {
    const s = r.signal;
    const m = (s.metadata ?? {}) as Record<string, unknown>;
    if (s.type === 'completion') {
      const profiles = m.profiles;
      if (profiles !== null && typeof profiles === 'object' && !Array.isArray(profiles)) {
        for (const [plan, value] of Object.entries(profiles as Record<string, unknown>)) {
          const p = profileOf(value);
          if (p && /^[\w.-]{1,40}$/.test(plan)) listed.set(placeKey(s.project, s.spec, plan), p);
        }
      }
      continue;
    }
    if (s.plan === undefined) continue;
    const place = placeKey(s.project, s.spec, s.plan);
    const p = profileOf(m.profile);
    if (p && !own.has(place)) own.set(place, p);
    brief(place, strings(m.briefed));
    if (s.type === 'use') brief(place, strings(m.entries));
    add(briefedFor, place, strings(m.briefedFor));
  }
  const profiles = new Map(listed);
  for (const [place, p] of own) profiles.set(place, p);
  const features = new Map<string, Set<string>>();
  const postings = new Map<string, Set<string>>();
  for (const [place, p] of profiles) {
    const set = profileFeatures(p);
    features.set(place, set);
    for (const f of set) {
      let list = postings.get(f);
      if (!list) postings.set(f, (list = new Set()));
      list.add(place);
    }
  }
  return { profiles, briefed, briefedFor, features, postings };
}

/**
 * When knowledge about a failure applies (documents/conditions.ts): the plans that met it
 * (`met`, places) against every other plan with a profile, leaving out the plans whose brief
 * carried the knowledge itself (`paths`): one that passed with the fix in its brief may have
 * met the cause and been spared by the fix, so it is no evidence that the cause was absent.
 */
export function appliesWhen(
  evidence: PlaceEvidence,
  met: readonly string[],
  paths: readonly string[] = [],
  signatures: readonly string[] = [],
): Learned & { known: number } {
  const mine = new Set(met);
  // Spared by this knowledge, or by another item about the same error (a skill standing for the lesson).
  const spared = (place: string) =>
    paths.some(
      (p) => evidence.briefed.get(place)?.has(p) || [...(evidence.briefed.get(place) ?? [])].some((b) => p.endsWith(`/${b}`) || b.endsWith(`/${p}`)),
    ) || signatures.some((sig) => evidence.briefedFor.get(place)?.has(sig));
  const positives = met.flatMap((place) => {
    const f = evidence.features.get(place);
    return f ? [f] : [];
  });
  // Left out of the others: the plans that met it, and those spared (only a plan whose brief carried something can be).
  const out = new Set([
    ...met.filter((place) => evidence.features.has(place)),
    ...[...new Set([...evidence.briefed.keys(), ...evidence.briefedFor.keys()])].filter(
      (place) => evidence.features.has(place) && !mine.has(place) && spared(place),
    ),
  ]);
  const others = {
    among: evidence.features.size - out.size,
    // Through the rarest feature's plans: a store of thousands of plans is not gone through for each condition.
    with(keys: readonly string[]): number {
      const lists = keys.map((k) => evidence.postings.get(k) ?? new Set<string>()).sort((a, b) => a.size - b.size);
      let n = 0;
      for (const place of lists[0]!) if (!out.has(place) && keys.every((k) => evidence.features.get(place)!.has(k))) n++;
      return n;
    },
  };
  return { ...learnFrom(positives, others, namedWords(signatures)), known: positives.length };
}
