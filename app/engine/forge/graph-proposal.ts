import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { findClosing } from '../core/spec/frontmatter.js';

/**
 * The issue graph read back (docs/github-flow.md, 12): a change someone made on GitHub to the
 * dependencies between plan issues, as a change to a PLAN.md's `depends_on`. Pure: the App
 * reads and writes, this decides the text.
 */

/** A dependency between two plans of one spec: `plan` depends on (is blocked by) `on`. */
export interface GraphEdge {
  spec: string;
  plan: string;
  on: string;
}

/** The branch of a merged spec's proposals: one per spec, its pull request into the default branch. */
export function graphBranch(spec: string): string {
  return `harness/graph/${spec}`;
}

/** The spec a proposals branch is for; undefined for any other branch. */
export function parseGraphBranch(ref: string | null | undefined): string | undefined {
  return /^harness\/graph\/([A-Z][A-Z0-9]*-\d+)$/.exec(ref ?? '')?.[1];
}

/** The label on a proposals pull request. */
export const LABEL_GRAPH = 'harness:graph';

/** A quoted YAML plan id, as harness writes them (`"01-02"`). */
function quoted(id: string): string {
  return JSON.stringify(id);
}

/**
 * A PLAN.md with `on` added to its frontmatter's `depends_on` (`present`) or taken out of it,
 * everything else byte for byte as it was: only the list's own text is rewritten, in the style
 * it was written in (`[…]` on one line, or one `- "id"` a line). Undefined when the list is
 * already so, or when the file has no frontmatter to edit (loadSpec would refuse it anyway).
 */
export function withDependsOn(text: string, on: string, present: boolean): string | undefined {
  const firstEnd = text.indexOf('\n');
  if (firstEnd === -1 || !/^---[ \t]*\r?$/.test(text.slice(0, firstEnd))) return undefined;
  const start = firstEnd + 1;
  const closing = findClosing(text, firstEnd);
  if (!closing) return undefined;
  const end = firstEnd + closing.index + 1;
  const yaml = text.slice(start, end);
  const doc = parseDocument(yaml);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined;
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'depends_on');
  const value = pair?.value;
  const current = isSeq(value) ? value.items.map((i) => (isScalar(i) ? String(i.value) : '')) : [];
  if (current.includes(on) === present) return undefined;
  const next = present ? [...current, on] : current.filter((id) => id !== on);
  const flow = `[${next.map(quoted).join(', ')}]`;
  let edited: string;
  if (isSeq(value) && !value.flow && value.range && next.length > 0) {
    // A block list: one item a line, at the indentation of the first.
    const [from, , to] = value.range;
    const lineStart = yaml.lastIndexOf('\n', from - 1) + 1;
    const indent = yaml.slice(lineStart, from);
    const items = next.map((id, i) => `${i === 0 ? '' : indent}- ${quoted(id)}`).join('\n');
    const trailing = /\n*$/.exec(yaml.slice(from, to))![0];
    edited = `${yaml.slice(0, from)}${items}${trailing}${yaml.slice(to)}`;
  } else if (isSeq(value) && value.range && pair && isScalar(pair.key) && pair.key.range) {
    // A flow list, or a block list left empty: the key's line from the value on.
    const [from, valueEnd, nodeEnd] = value.range;
    const to = value.flow ? valueEnd : nodeEnd;
    const keyEnd = pair.key.range[1];
    const between = value.flow ? yaml.slice(keyEnd, from) : ': ';
    const trailing = value.flow ? '' : /\n*$/.exec(yaml.slice(from, to))![0];
    edited = `${yaml.slice(0, keyEnd)}${between}${flow}${trailing}${yaml.slice(to)}`;
  } else if (pair && isScalar(pair.key) && pair.key.range) {
    // `depends_on:` with nothing (or a single value) after it: the whole line written again.
    const lineStart = yaml.lastIndexOf('\n', pair.key.range[0] - 1) + 1;
    const lineEnd = yaml.indexOf('\n', pair.key.range[0]);
    edited = `${yaml.slice(0, lineStart)}depends_on: ${flow}${lineEnd === -1 ? '' : yaml.slice(lineEnd)}`;
  } else {
    // No depends_on at all: a line of its own at the end of the frontmatter.
    edited = `${yaml}${yaml.endsWith('\n') || yaml === '' ? '' : '\n'}depends_on: ${flow}\n`;
  }
  return `${text.slice(0, start)}${edited}${text.slice(end)}`;
}

/** Who changed the graph, as a comment names them. */
export interface GraphActor {
  login: string;
  /** A bot other than the App (GitHub's `sender.type`). */
  bot: boolean;
}

/** The hidden first line of the App's comment about one edge, on the dependent plan's issue: one comment per edge, edited in place. */
export function graphCommentMarker(edge: GraphEdge): string {
  return `<!-- harness:graph ${edge.spec}/${edge.plan} ${edge.on} -->`;
}

export interface GraphIssues {
  /** The dependent plan's issue number. */
  plan: number;
  /** The issue number of the plan it depends on. */
  on: number;
}

/** Where a proposal went: a commit on the open spec PR, or the spec's proposals PR. */
export type ProposalPlace = { kind: 'spec-pr'; pull: number; commit?: string } | { kind: 'graph-pr'; pull: number };

function placeText(place: ProposalPlace): string {
  return place.kind === 'spec-pr'
    ? `a commit${place.commit ? ` (${place.commit.slice(0, 7)})` : ''} on the spec's pull request #${place.pull}`
    : `pull request #${place.pull}, which proposes this spec's graph changes`;
}

function change(edge: GraphEdge, issues: GraphIssues, added: boolean): string {
  return added
    ? `#${issues.plan} (${edge.plan}) blocked by #${issues.on} (${edge.on})`
    : `#${issues.plan} (${edge.plan}) no longer blocked by #${issues.on} (${edge.on})`;
}

const PENDING = '**Pending:**';

/** Does the App's comment about an edge say a proposal is pending? */
export function isPendingComment(body: string): boolean {
  return body.split('\n')[1]?.startsWith(PENDING) === true;
}

/**
 * The pending line: a writer's change proposed to the spec. Until a person merges it the spec
 * stays the truth, and harness schedules by the spec's `depends_on`.
 */
export function proposalComment(edge: GraphEdge, issues: GraphIssues, added: boolean, actor: GraphActor, file: string, place: ProposalPlace): string {
  return [
    graphCommentMarker(edge),
    `${PENDING} @${actor.login} made ${change(edge, issues, added)} here. harness proposed it to the spec as ${placeText(place)}: ` +
      `\`depends_on\` of \`${file}\` ${added ? 'gains' : 'loses'} \`"${edge.on}"\`.`,
    '',
    `Until a person merges that, the spec stays the truth: harness schedules ${edge.plan} by the spec's \`depends_on\`${added ? `, not by this link` : ', which still has this dependency'}.`,
  ].join('\n');
}

/**
 * A change by someone without write access (or a bot other than the App), put back as the spec
 * has it: a blocked-by link, or (`moved`) the dependency's issue put under the dependent's as a sub-issue.
 */
export function revertComment(edge: GraphEdge, issues: GraphIssues, added: boolean, actor: GraphActor, file: string, moved = false): string {
  const who = actor.bot
    ? `@${actor.login} is a bot, and only the harness App and people with write access change a plan's dependencies`
    : `@${actor.login} has no write access to this repository, which a change to a plan's dependencies needs`;
  const undone = moved
    ? `harness put #${issues.on} (${edge.on}) back where the spec has it, out from under #${issues.plan} (${edge.plan})`
    : `harness ${added ? 'removed' : 'restored'} the link that made ${change(edge, issues, added)}`;
  return [
    graphCommentMarker(edge),
    `${undone}: ${who}. The spec says what each plan depends on, and it ${added ? 'does not have' : 'has'} this dependency.`,
    '',
    `To propose it, change \`depends_on\` in \`${file}\` in a pull request, or ask someone with write access to ${added ? 'add' : 'remove'} the link here: harness turns their change into a proposal to the spec.`,
  ].join('\n');
}

/** A proposed dependency the spec cannot take (a cycle, a later phase): nothing proposed, the link put back. */
export function refusedComment(edge: GraphEdge, issues: GraphIssues, added: boolean, actor: GraphActor, file: string, reasons: readonly string[]): string {
  return [
    graphCommentMarker(edge),
    `harness ${added ? 'removed' : 'restored'} the link that made ${change(edge, issues, added)} (@${actor.login}) and proposed nothing: the spec with that change would not be valid.`,
    '',
    ...reasons.map((r) => `- ${r}`),
    '',
    `Change the plans in \`${file}\` and the others named above in a pull request if the graph should change.`,
  ].join('\n');
}

/** An earlier comment about an edge, once the spec says what the link says (a proposal merged, or withdrawn by putting the link back). */
export function settledComment(edge: GraphEdge, issues: GraphIssues, inSpec: boolean): string {
  return [
    graphCommentMarker(edge),
    `No change pending: the spec ${inSpec ? 'has' : 'does not have'} ${edge.plan} depending on ${edge.on}, and the link between #${issues.plan} and #${issues.on} says the same.`,
  ].join('\n');
}

/** The hidden first line of the App's comment about where a plan issue sits in the issue tree. */
export function parentCommentMarker(spec: string, plan: string): string {
  return `<!-- harness:graph-parent ${spec}/${plan} -->`;
}

/**
 * A plan issue moved in the issue tree in a way the spec has no words for (under an issue that
 * is no plan of the spec, or out of the spec's issue): put back (`restored`), or left for the
 * next sync to put back (a writer's move).
 */
export function parentComment(spec: string, plan: string, actor: GraphActor, parent: number, restored: boolean): string {
  const why = actor.bot
    ? `@${actor.login} is a bot, and only the harness App and people with write access move plan issues`
    : restored
      ? `@${actor.login} has no write access to this repository, which moving a plan issue needs`
      : `the spec has no way to say this`;
  return [
    parentCommentMarker(spec, plan),
    `${restored ? `harness put this issue back under #${parent}` : `This issue belongs under #${parent}, and the next sync of spec ${spec} puts it back there`}: ${why}. Where a plan's issue sits follows the spec.`,
    '',
    `To make ${plan} wait for another plan, add that plan to its \`depends_on\` in a pull request, or (with write access) make this issue blocked by that plan's issue, or make that plan's issue a sub-issue of this one: harness proposes either to the spec.`,
  ].join('\n');
}

/**
 * A link someone added by hand that the App saw no event for (an App run by Actions gets none;
 * a webhook can be missed): the sync of the spec from `pull` took it away, not knowing who added
 * it, so nothing was proposed.
 */
export function undoneComment(edge: GraphEdge, issues: GraphIssues, pull: number, file: string): string {
  return [
    graphCommentMarker(edge),
    `harness removed the link that made ${change(edge, issues, true)} when it synced the spec from #${pull}: the spec does not have this dependency, and harness saw no event saying who added the link, so it could not propose it.`,
    '',
    `To propose it, change \`depends_on\` in \`${file}\` in a pull request.`,
  ].join('\n');
}
