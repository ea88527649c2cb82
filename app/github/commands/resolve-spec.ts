import type { Invocation } from './invocation.js';
import { specsOfPull } from './specs-of-pull.js';

export type SpecChoice = { ok: true; spec: string } | { ok: false; message: string };

/** The specs the place a command was written in is about: none on an ordinary issue. */
export async function specsHere(inv: Invocation): Promise<string[]> {
  switch (inv.place.kind) {
    case 'issue':
      return inv.place.plan ? [inv.place.plan.spec] : [];
    case 'pull':
      return specsOfPull(inv, inv.place.number);
    case 'check':
      return [inv.place.spec];
  }
}

/**
 * The one spec a command acts on: the one it names (`SPC-002/03-02`), else the plan issue's,
 * else the spec PR's when it changes exactly one. Otherwise the answer asks for the name,
 * with the command written the way that works (`example` shows where the spec goes).
 */
export async function resolveSpec(inv: Invocation, named: string | undefined, example: (spec: string) => string): Promise<SpecChoice> {
  if (named !== undefined) return { ok: true, spec: named };
  const specs = await specsHere(inv);
  if (specs.length === 1) return { ok: true, spec: specs[0]! };
  if (specs.length > 1) {
    return { ok: false, message: `this pull request changes ${specs.length} specs (${specs.join(', ')}); name the one you mean, as in \`${example(specs[0]!)}\`` };
  }
  const where = inv.place.kind === 'pull' ? 'this pull request changes no spec' : 'this issue is not a plan issue';
  return { ok: false, message: `${where}, so name the spec, as in \`${example('SPC-001')}\`` };
}
