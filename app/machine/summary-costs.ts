import { join } from 'node:path';
import { parseFrontmatter } from '../engine/core/spec/frontmatter.js';
import { listIfExists, readTextIfExists } from './files.js';

/**
 * What each plan of a spec cost, as its SUMMARY.md records it (`cost.usd` in the frontmatter,
 * execution/phases/<phase>/<plan>-SUMMARY.md). On GitHub these documents are what the worker
 * commits with each verified plan, so the spec directory of the base holds the cost of every
 * plan merged so far: Git is the record, with no other state to keep.
 */
export async function summaryCosts(specDir: string): Promise<Map<string, number>> {
  const costs = new Map<string, number>();
  const phasesDir = join(specDir, 'execution', 'phases');
  for (const phase of (await listIfExists(phasesDir)) ?? []) {
    if (!phase.isDirectory()) continue;
    for (const file of (await listIfExists(join(phasesDir, phase.name))) ?? []) {
      const match = /^(.+)-SUMMARY\.md$/.exec(file.name);
      if (!match || !file.isFile()) continue;
      const text = await readTextIfExists(join(phasesDir, phase.name, file.name));
      if (text === undefined) continue;
      const parsed = parseFrontmatter(file.name, text);
      if (!parsed.ok) continue;
      const cost = (parsed.frontmatter.data as { plan_id?: unknown; cost?: { usd?: unknown } }).cost?.usd;
      const plan = (parsed.frontmatter.data as { plan_id?: unknown }).plan_id;
      if (typeof cost === 'number' && cost >= 0) costs.set(typeof plan === 'string' ? plan : match[1]!, cost);
    }
  }
  return costs;
}
