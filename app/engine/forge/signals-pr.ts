import { captureFiles, captureReads, type CaptureBatch, type CaptureResult } from '../knowledge/signals/capture.js';
import type { SignalDraft } from '../knowledge/documents/loop.js';
import type { TrajectoryEvent } from '../knowledge/documents/trajectory.js';
import { knowledgeBranch, knowledgeLabels, KNOWLEDGE_ROOT } from './knowledge-draft.js';

/**
 * A spec's signals on GitHub (docs/design.md, Knowledge): they accumulate on one knowledge PR,
 * branch `harness/knowledge/signal/<spec>`, labelled `harness:knowledge` and `signal`; each
 * worker job (and the App, for what people do) adds a commit; merging the PR accepts them.
 * This is what to append; the gateway's appendKnowledge carries it out.
 */

/** A file for the store, its path relative to the store's root. */
export interface StoreFile {
  path: string;
  text: string;
}

/** The store as the branch has it, for the writer to decide what to add. */
export interface StoreAtBranch {
  /** A file of the store (path relative to its root) at the commit being built on; undefined when there is none. */
  read(path: string): Promise<string | undefined>;
  /** When the open pull request collecting these files was opened; undefined when a new one will be. */
  openedAt?: string;
}

/** Knowledge to add to the PR that collects it; `build` is called again whenever the branch moved under a try. */
export interface KnowledgeAppend {
  branch: string;
  /** Where a new branch starts, and what the PR merges into. */
  base: string;
  /** The store's folder in the repository: `.harness/knowledge`, or '' in a knowledge repository. */
  root: string;
  commitMessage: string;
  pr: { title: string; body: string; labels: readonly string[] };
  /** The files to commit; none: there is nothing new (a re-run that captured what is there already). */
  build(store: StoreAtBranch): Promise<StoreFile[]>;
}

/** Where the store is in a repository: this repository's `.harness/knowledge/`, or the whole of a knowledge repository. */
export function storeRoot(knowledgeRepository: string | undefined): string {
  return knowledgeRepository === undefined ? KNOWLEDGE_ROOT : '';
}

/** The spec's signals branch; in a knowledge repository shared by projects, under the project's name. */
export function signalsBranch(spec: string, project: string, shared: boolean): string {
  return knowledgeBranch('signal', shared ? `${project}/${spec}` : spec);
}

export interface SignalsInput {
  spec: string;
  project: string;
  /** Where they were captured (a workflow run, a comment): part of each signal's key, so a re-run adds nothing. */
  origin: string;
  at: Date;
  drafts: readonly SignalDraft[];
  trajectory?: readonly (TrajectoryEvent | { key: string })[];
  /** Documents filed with the signals (a capsule), as captureFiles takes them. */
  documents?: CaptureBatch['documents'];
  /** templates/signal.md. */
  template: string;
  /** knowledge.capture.max_per_phase: counted over the signals the open PR collects. */
  maxPerPhase: number;
  /** The default branch: where the PR goes. */
  base: string;
  /** knowledge.repository, when the store is a repository of its own. */
  knowledgeRepository?: string;
  /** What the commit says it adds, one line ("01-02, attempt 2"). */
  what: string;
  /** The content-safety pass, which every file goes through before it leaves the process. */
  safe(text: string): Promise<string>;
}

/** The append, and (once it ran) what capture decided: which signals were filed and which left out. */
export async function signalsAppend(input: SignalsInput): Promise<{ append: KnowledgeAppend; decided: () => CaptureResult | undefined }> {
  let decided: CaptureResult | undefined;
  const shared = input.knowledgeRepository !== undefined;
  const from = shared ? ` from ${input.project}` : '';
  const types = [...new Set(input.drafts.map((d) => d.type))].join(', ');
  const root = storeRoot(input.knowledgeRepository);
  const append: KnowledgeAppend = {
    branch: signalsBranch(input.spec, input.project, shared),
    base: input.base,
    root,
    commitMessage: await input.safe(`signals(${input.spec}): ${input.what}${types ? ` (${types})` : ''}\n\nSpec: ${input.spec}`),
    pr: {
      title: await input.safe(`Signals of ${input.spec}${from}`),
      body: await input.safe(signalsPrBody(input.spec, input.project, root)),
      labels: knowledgeLabels('signal'),
    },
    async build(store) {
      const reads = captureReads(input.at);
      const [index, trajectory] = await Promise.all([store.read(reads.index), store.read(reads.trajectory)]);
      decided = captureFiles(
        {
          drafts: input.drafts,
          ...(input.trajectory ? { trajectory: input.trajectory } : {}),
          ...(input.documents ? { documents: input.documents } : {}),
          project: input.project,
          origin: input.origin,
          at: input.at,
          template: input.template,
          cap: { max: input.maxPerPhase, ...(store.openedAt === undefined ? {} : { since: store.openedAt }) },
        },
        { index, trajectory },
      );
      return Promise.all(decided.files.map(async (f) => ({ path: f.path, text: await input.safe(f.text) })));
    },
  };
  return { append, decided: () => decided };
}

/** What the signals PR says of itself: what it collects, and what merging and closing it mean. */
export function signalsPrBody(spec: string, project: string, root: string): string {
  const where = root === '' ? 'this knowledge repository' : `\`${root}/\``;
  return [
    `harness captured these signals while **${spec}** ran in **${project}**: what happened as the plans were worked on (deviations, repairs, struggles, time-outs, completions, what the agents and people reported). Each worker job adds a commit; the PR stays open and collects them.`,
    '',
    `Merging accepts them into ${where}, where reflection reads them and distils lessons. Closing it rejects them; the next signal of ${spec} starts a new PR. Every file went through harness's content-safety pass (secrets redacted, this machine's paths made \`\${PROJECT_ROOT}\`-relative); look through them before you merge.`,
  ].join('\n');
}
