import { createHash } from 'node:crypto';
import { knowledgeBranch, knowledgeLabels, KNOWLEDGE_ROOT, type KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { geneEvent, type GeneEvent } from '../../engine/knowledge/genes/gene-events.js';
import { readGene } from '../../engine/knowledge/genes/gene-read.js';
import { parseKnowledge } from '../../engine/knowledge/documents/parse.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { KnowledgePr } from '../../gateway/knowledge-pr.js';
import type { TreeEntry } from '../../gateway/trees.js';
import type { SafetyOptions } from '../../machine/content-safety.js';
import { safeDraft } from './app-safety.js';

/**
 * Federation (docs/design.md, Genes): knowledge is private to its project by default; a gene
 * marked `publishable: true` (and active: only proven genes travel) and a skill whose
 * `metadata.publishable` is "true" are proposed to the shared knowledge repository that
 * `knowledge.shared` names, by a PR there, `harness/knowledge/<kind>/<project>/<name>-<hash>`:
 * the hash is of the content, so the same content is proposed once, and a changed one again.
 * What the shared repository already holds identically is not proposed: its tree's blob shas
 * are compared with the git blob sha of the content, without reading a blob.
 */

export interface FederationInput {
  /** The project's store. */
  here: Pick<Gateway, 'directory' | 'tree' | 'blob'>;
  hereBase: string;
  /** The shared knowledge repository. */
  shared: Pick<Gateway, 'directory' | 'tree' | 'openKnowledgePr'>;
  sharedBase: string;
  sharedName: string;
  project: string;
  now: Date;
  safety: SafetyOptions;
  log: { warn(message: string): void };
}

export interface Published {
  path: string;
  kind: 'gene' | 'skill';
  pr?: KnowledgePr;
  /** Why it was not proposed (the shared repository has it already). */
  skipped?: string;
}

export interface FederationResult {
  published: Published[];
  events: GeneEvent[];
}

function blobSha(text: string): string {
  const bytes = new TextEncoder().encode(text);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

const decoder = new TextDecoder();

/** The files under each of `folders` of the store (one GET /contents, one tree read a folder that is there). */
async function listed(github: Pick<Gateway, 'directory' | 'tree'>, base: string, folders: readonly string[]): Promise<Map<string, TreeEntry[]>> {
  const top = (await github.directory(KNOWLEDGE_ROOT, base)) ?? [];
  const out = new Map<string, TreeEntry[]>();
  for (const folder of folders) {
    const dir = top.find((e) => e.name === folder && e.type === 'dir');
    out.set(folder, dir ? (await github.tree(dir.sha, true)).entries.filter((e) => e.type === 'blob') : []);
  }
  return out;
}

/** The project's publishable genes and skills proposed to the shared knowledge repository, each by its own PR. */
export async function federate(input: FederationInput): Promise<FederationResult> {
  const result: FederationResult = { published: [], events: [] };
  const here = await listed(input.here, input.hereBase, ['genes', 'skills']);
  const candidates = [...(await publishableGenes(input, here.get('genes')!)), ...(await publishableSkills(input, here.get('skills')!))];
  if (candidates.length === 0) return result;

  const there = new Map<string, string>();
  for (const [folder, entries] of await listed(input.shared, input.sharedBase, ['genes', 'skills']))
    for (const e of entries) there.set(`${folder}/${e.path}`, e.sha);
  for (const c of candidates) await propose(input, c, there, result);
  return result;
}

/** A gene or a skill the project publishes, with every file that travels with it. */
interface Candidate {
  kind: 'gene' | 'skill';
  name: string;
  path: string;
  files: { path: string; text: string }[];
}

/** The active genes marked `publishable: true` (one blob read each). */
async function publishableGenes(input: FederationInput, entries: TreeEntry[]): Promise<Candidate[]> {
  const candidates: Candidate[] = [];
  for (const e of entries.filter((e) => e.path.endsWith('.gene.md'))) {
    const path = `genes/${e.path}`;
    const text = decoder.decode(await input.here.blob(e.sha));
    const read = readGene(path, text);
    if ('gene' in read && read.gene.publishable && read.gene.status === 'active')
      candidates.push({ kind: 'gene', name: read.gene.id, path, files: [{ path, text }] });
  }
  return candidates;
}

/** The skills whose `metadata.publishable` is "true", each with its other files. */
async function publishableSkills(input: FederationInput, skillFiles: TreeEntry[]): Promise<Candidate[]> {
  const candidates: Candidate[] = [];
  for (const e of skillFiles.filter((e) => /^[^/]+\/SKILL\.md$/.test(e.path))) {
    const path = `skills/${e.path}`;
    const text = decoder.decode(await input.here.blob(e.sha));
    const parsed = parseKnowledge('skill', path, text);
    if (!parsed.data || parsed.problems.some((p) => p.severity === 'error') || parsed.data.metadata?.publishable !== 'true') continue;
    const folder = e.path.slice(0, e.path.indexOf('/') + 1);
    // The whole skill travels: its scripts and references with its SKILL.md.
    const files = [{ path, text }];
    for (const other of skillFiles.filter((o) => o.path.startsWith(folder) && o !== e))
      files.push({ path: `skills/${other.path}`, text: decoder.decode(await input.here.blob(other.sha)) });
    candidates.push({ kind: 'skill', name: parsed.data.name, path, files });
  }
  return candidates;
}

/**
 * One candidate proposed by a PR to the shared repository, unless it holds every file identically
 * (`there`: its blob shas by path); an opened PR is a publish event.
 */
async function propose(input: FederationInput, c: Candidate, there: ReadonlyMap<string, string>, result: FederationResult): Promise<void> {
  const changed = c.files.filter((f) => there.get(f.path) !== blobSha(f.text));
  if (changed.length === 0) {
    result.published.push({ path: c.path, kind: c.kind, skipped: `${input.sharedName} has it already` });
    return;
  }
  const hash = createHash('sha256')
    .update(c.files.map((f) => `${f.path}\n${f.text}`).join('\n'))
    .digest('hex')
    .slice(0, 8);
  const pr = await input.shared.openKnowledgePr(await safeDraft(publishDraft(input, c, hash, there.has(c.path)), input.safety), input.sharedBase);
  result.published.push({ path: c.path, kind: c.kind, pr });
  if (pr.state === 'opened') {
    result.events.push({
      ...geneEvent({
        at: input.now,
        basis: hash,
        type: 'publish',
        entry: c.path,
        kind: c.kind,
        project: input.project,
        reason: `proposed to ${input.sharedName}`,
      }),
      pr: pr.number,
    });
  }
}

/** The PR proposing a candidate, on a branch named by the project, its name and `hash` (of its content). */
function publishDraft(input: FederationInput, c: Candidate, hash: string, replaces: boolean): KnowledgeDraft {
  const slug = `${input.project}/${c.name}-${hash}`;
  return {
    kind: c.kind,
    slug,
    branch: knowledgeBranch(c.kind, slug),
    files: c.files.map((f) => ({ path: `${KNOWLEDGE_ROOT}/${f.path}`, content: f.text })),
    commitMessage: `Publish ${c.kind} ${c.name} from ${input.project}`,
    title: `harness: publish ${c.kind} ${c.name} from ${input.project}`,
    body: [
      `<!-- harness:publish ${c.kind} ${c.path} from ${input.project} -->`,
      `The project **${input.project}** marked this ${c.kind} publishable, so harness proposes it to the shared knowledge: \`${c.path}\`${c.files.length > 1 ? ` with ${c.files.length - 1} more file${c.files.length === 2 ? '' : 's'}` : ''}.`,
      '',
      replaces ? 'The shared repository has an earlier version: this PR replaces it.' : 'The shared repository does not have it yet.',
      '',
      'Merging it makes it available to every project that reads this repository; closing it keeps it private to its project.',
    ].join('\n'),
    labels: knowledgeLabels(c.kind),
  };
}
