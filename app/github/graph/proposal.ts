import { loadSpec } from '../../engine/core/spec/load.js';
import { graphBranch, LABEL_GRAPH, withDependsOn, type GraphEdge, type ProposalPlace } from '../../engine/forge/graph-proposal.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import { GitHubError } from '../../gateway/github-error.js';
import type { Gateway } from '../../gateway/gateway.js';
import { specFileText, type SpecSource } from './spec-source.js';

const encoder = new TextEncoder();

/** Writers racing for the spec PR's branch take turns; this many lost races in a row is a fault. */
const MAX_TRIES = 4;

/**
 * Why the spec would not be valid with `edge` added (or removed): the problems loadSpec finds in
 * it that the spec as it is does not have (a cycle, named plan by plan; a dependency on a later
 * phase). None: the change can be proposed.
 */
export function changeProblems(source: SpecSource, edge: GraphEdge, present: boolean): string[] {
  const plan = source.spec.planById.get(edge.plan);
  const text = plan ? specFileText(source, plan.file) : undefined;
  if (!plan || text === undefined) return [`plan ${edge.plan} is not in the spec any more`];
  if (present && !source.spec.planById.has(edge.on)) return [`plan ${edge.on} is not in the spec any more`];
  const next = withDependsOn(text, edge.on, present);
  if (next === undefined) return [];
  const files = source.files.map((f) => (f.path === plan.file ? { path: f.path, bytes: encoder.encode(next) } : f));
  return loadSpec(files, PLAN_READING)
    .problems.filter((p) => p.severity === 'error')
    .map((p) => `${p.file}:${p.line}: ${p.message}`);
}

function commitMessage(edge: GraphEdge, present: boolean, login: string): string {
  const what = present ? `${edge.plan} depends on ${edge.on}` : `${edge.plan} no longer depends on ${edge.on}`;
  return `${edge.spec}: ${what}\n\nProposed by harness from @${login}'s change to the plan issues' dependencies on GitHub.`;
}

/**
 * Propose `edge` (present or not) to the spec: the dependent plan's PLAN.md with its
 * `depends_on` changed (withDependsOn), everything else as it was.
 * - On an open spec PR: one commit on its branch, on the branch's head as it is now (the ref
 *   moves forward only: GitHub refusing means someone pushed meanwhile, and it is tried again
 *   on their commit). Nothing when the branch says so already.
 * - On a merged spec: the spec's one proposals PR (`harness/graph/<spec>`, label
 *   `harness:graph`) against the branch the spec is on, opened when there is none and added to
 *   while it is open (the gateway's appendKnowledge: forward only, never a second PR); nothing
 *   committed when the branch says so already.
 */
export async function proposeEdge(github: Gateway, source: SpecSource, edge: GraphEdge, present: boolean, login: string): Promise<ProposalPlace | undefined> {
  const plan = source.spec.planById.get(edge.plan);
  if (!plan) return undefined;
  const path = `${source.specPath}/${plan.file}`;
  const message = commitMessage(edge, present, login);
  const place = source.place;
  if (place.kind === 'spec-pr') {
    for (let tries = 1; tries <= MAX_TRIES; tries++) {
      const head = await github.branchSha(place.branch);
      if (head === undefined) return undefined;
      const text = await github.fileText(path, head);
      const next = text === undefined ? undefined : withDependsOn(text, edge.on, present);
      if (next === undefined) return { kind: 'spec-pr', pull: place.pull };
      const tree = await github.createTree(await github.commitTree(head), [{ path, content: next }]);
      const commit = await github.createCommit({ message, tree, parents: [head] });
      if ((await github.updateBranch(place.branch, commit)) === 'updated') return { kind: 'spec-pr', pull: place.pull, commit };
    }
    throw new GitHubError(
      `PATCH /repos/{owner}/{repo}/git/refs/heads/${place.branch}`,
      409,
      'conflict',
      `the branch moved under each of ${MAX_TRIES} tries`,
      'Someone keeps pushing to the spec PR; the next change to the dependencies proposes it again',
    );
  }
  const appended = await github.appendKnowledge({
    branch: graphBranch(edge.spec),
    base: place.branch,
    root: '',
    commitMessage: message,
    pr: {
      title: `${edge.spec}: dependency changes made on GitHub`,
      body: [
        `Changes people with write access made to the dependencies between ${edge.spec}'s plan issues, proposed to the spec's \`depends_on\`.`,
        '',
        'Until this is merged, the spec stays the truth: harness schedules by it. Merged, harness syncs the plan issues from the spec again.',
      ].join('\n'),
      labels: [LABEL_GRAPH],
    },
    build: async (store) => {
      const text = await store.read(path);
      const next = text === undefined ? undefined : withDependsOn(text, edge.on, present);
      return next === undefined ? [] : [{ path, text: next }];
    },
  });
  return appended.pr ? { kind: 'graph-pr', pull: appended.pr.number } : undefined;
}
