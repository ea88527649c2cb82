/**
 * GitHub API economy: how many requests, and how many writes, the App makes per delivery
 * on a generated spec of 100 plans. Requests are counted at the HTTP level: the App runs
 * through Probot (`probot.receive` with real `pull_request` payloads from
 * @octokit/webhooks-examples) against the fake GitHub of test/helpers/github-repo.ts, which
 * records every request. Pacing is off, as in the tests: the counts, not the time, are
 * the point (the hours section paces on simulated time).
 *
 *   npm run bench -- github
 *
 * The report is made of sections, each a function that returns rows of the same columns
 * (EconomyRow) with its notes and targets: a section for the scheduling round goes in
 * SECTIONS beside the spec PR sync, and the table, targets and results take it as it is.
 */
import nock from 'nock';
import { LABEL_COLORS } from '../app/engine/forge/names.js';
import { FakeGitHub } from '../test/helpers/github-repo.js';
import { restartApp } from '../test/helpers/app-process.js';
import { skippingClock } from '../test/helpers/app-clock.js';
import { testProbot, webhookExample } from '../test/helpers/probot.js';
import { schedulingRound } from './github-schedule.js';
import { simulateHours } from './github-hours.js';
import { workersSection } from './github-workers.js';
import type { BenchModule, Row, Target } from './lib.js';
import { generateSpec } from './spec-gen.js';

/** One delivery measured: the columns every section reports. */
export interface EconomyRow extends Row {
  section: string;
  scenario: string;
  requests: number;
  reads: number;
  writes: number;
  /** Creates and updates of issues (plan issues and their notes), and their label writes. */
  'issue writes': number;
  /** Native issue dependencies: one request per `needs` edge added or removed. */
  'dependency writes': number;
  /** Plan issues added to (or taken out of) the spec's tracking issue, one request each. */
  'sub-issue writes': number;
  /** Check runs, labels, the status comment. */
  'other writes': number;
}

export interface SectionReport {
  notes: string[];
  rows: EconomyRow[];
  targets: Target[];
  results: unknown;
}

export type Section = (log: (line: string) => void) => Promise<SectionReport>;

const SHAPE = { plans: 100, phases: 5, edges: 150 };
/**
 * What a first sync writes besides one issue per plan: the `harness / spec` check run
 * (created in progress, completed at the end), the labels harness styles itself (the first
 * time in a repository: LABEL_COLORS), the status comment and the spec's tracking issue. None
 * depends on the spec's size.
 */
const FIRST_SYNC_CONSTANT = 2 + Object.keys(LABEL_COLORS).length + 1 + 1;
const RESYNC_MAX_READS = 5;
const DIR = 'docs/specs/SPC-900-generated';

interface PullRequestPayload {
  action: string;
  before?: string;
  after?: string;
  pull_request: { head: { sha: string } };
}

/** A GraphQL request's document (limit-model.ts reads it the same way). */
function graphqlQuery(r: { url: string; body?: unknown }): string {
  return r.url === '/graphql' ? String((r.body as { query?: unknown } | undefined)?.query ?? '') : '';
}

/** Plan issues created under their parent in one GraphQL request each (issues.ts, createSubIssue): an issue write that is a sub-issue write too. */
function createdUnderParent(requests: readonly { url: string; body?: unknown }[]): number {
  return requests.filter(
    (r) =>
      /createIssue\(/.test(graphqlQuery(r)) &&
      (r.body as { variables?: { input?: { parentIssueId?: unknown } } }).variables?.input?.parentIssueId !== undefined,
  ).length;
}

function measure(github: FakeGitHub, from: number, section: string, scenario: string): EconomyRow {
  const requests = github.requests.slice(from);
  // A GraphQL query writes nothing; a mutation does.
  const writes = requests.filter((r) => r.method !== 'GET' && (r.url !== '/graphql' || /^\s*mutation\b/.test(graphqlQuery(r))));
  const dependency = writes.filter((w) => w.url.includes('/dependencies/')).length;
  const subIssue = writes.filter((w) => /\/sub_issues?$/.test(w.url)).length;
  // The spec PR is #2 in the example payloads: its comments are the status comment, not an issue's.
  const onPullRequest = (url: string) => url.startsWith(`/repos/${github.owner}/${github.repo}/issues/2/`);
  // GraphQL's issue creations, records and label moves are issue writes; its label creations, other writes.
  const graphqlIssue = (w: { url: string; body?: unknown }) =>
    /(createIssue|updateIssue|addLabelsToLabelable|removeLabelsFromLabelable)\(/.test(graphqlQuery(w));
  const issue = writes.filter(
    (w) =>
      graphqlIssue(w) ||
      /\/issues(\/\d+)?$/.test(w.url) ||
      /\/issues\/\d+\/labels(\/.+)?$/.test(w.url) ||
      (/\/issues\/\d+\/comments$/.test(w.url) && !onPullRequest(w.url)),
  ).length;
  return {
    section,
    scenario,
    requests: requests.length,
    reads: requests.length - writes.length,
    writes: writes.length,
    'issue writes': issue,
    'dependency writes': dependency,
    'sub-issue writes': subIssue,
    'other writes': writes.length - issue - dependency - subIssue,
  };
}

/** Step 1 of docs/github-flow.md: a spec PR's first sync, its redelivery, and pushes after it. */
const specPullRequestSync: Section = async (log) => {
  const generated = generateSpec(SHAPE);
  const specFiles = Object.fromEntries([...generated.files].map(([path, text]) => [`${DIR}/${path}`, text]));
  const payload = (action: string, head?: string): PullRequestPayload => {
    const p = webhookExample<PullRequestPayload>('pull_request', (e) => e.action === action);
    // One installation, as every event of one repository comes from (the examples carry several).
    (p as { installation?: unknown }).installation = { id: 1 };
    if (head) {
      p.before = p.pull_request.head.sha;
      p.after = head;
      p.pull_request.head.sha = head;
    }
    return p;
  };
  const opened = payload('opened');
  const head = opened.pull_request.head.sha;
  const base = webhookExample<{ pull_request: { base: { sha: string } } }>('pull_request', (e) => e.action === 'opened').pull_request.base.sha;
  const rows: EconomyRow[] = [];
  const S = 'spec PR sync';

  let editedBlobReads: number | undefined;
  let underParent: number | undefined;
  let labelRequests: number | undefined;
  let labelRequestsWithout: number | undefined;
  nock.disableNetConnect();
  const run = async (dependencies: FakeGitHub['dependencies']) => {
    // A new repository, and an App that has read nothing of it yet.
    restartApp({ clock: skippingClock() });
    const github = new FakeGitHub();
    github.config = 'specs_root: docs/specs\n';
    github.dependencies = dependencies;
    github.commit(base, { 'README.md': '# Hello\n' });
    github.commit(head, { 'README.md': '# Hello\n', ...specFiles });
    github.install();
    const deliver = async (p: PullRequestPayload, id: string, scenario: string) => {
      const from = github.requests.length;
      await testProbot().receive({ id, name: 'pull_request', payload: p } as never);
      const row = measure(github, from, S, scenario);
      log(`${scenario}: ${row.requests} requests, ${row.writes} writes`);
      return row;
    };
    return { github, deliver };
  };

  try {
    const { github, deliver } = await run('available');
    rows.push(await deliver(opened, 'd-1', 'first sync (opened)'));
    underParent = createdUnderParent(github.requests);
    labelRequests = github.requests.filter((r) => /^mutation CreateLabels/.test(graphqlQuery(r))).length;
    // One issue per plan, and the spec's tracking issue holding them all as sub-issues.
    if (github.issues.length !== SHAPE.plans + 1)
      throw new Error(`the first sync made ${github.issues.length} issues for ${SHAPE.plans} plans and the tracking issue`);
    if (github.subIssueNumbers(github.issues[0]!.number).length !== SHAPE.plans)
      throw new Error(`the tracking issue holds ${github.subIssueNumbers(github.issues[0]!.number).length} of ${SHAPE.plans} plan issues`);
    rows.push(await deliver(opened, 'd-1', 'unchanged re-sync: redelivery'));
    rows.push(await deliver(payload('reopened'), 'd-2', 'unchanged re-sync: reopened'));

    const unchanged = 'c0ffee0000000000000000000000000000000001';
    github.commit(unchanged, { 'README.md': '# Hello, again\n', ...specFiles });
    rows.push(await deliver(payload('synchronize', unchanged), 'd-3', 'push, spec unchanged'));

    const edited = 'c0ffee0000000000000000000000000000000002';
    const [path, text] = [...generated.files].find(([p]) => p.endsWith('-PLAN.md'))!;
    github.commit(edited, { 'README.md': '# Hello, again\n', ...specFiles, [`${DIR}/${path}`]: text.replace(/^title: (.*)$/m, 'title: $1, revised') });
    const beforeEdit = github.requests.length;
    rows.push(await deliver(payload('synchronize', edited), 'd-4', 'push, one plan edited'));
    editedBlobReads = github.requests.slice(beforeEdit).filter((r) => r.url.includes('/git/blobs/') || /^query Blobs/.test(graphqlQuery(r))).length;

    nock.cleanAll();
    const without = await run(404);
    rows.push(await without.deliver(opened, 'd-5', 'first sync, no native dependencies (404)'));
    labelRequestsWithout = without.github.requests.filter((r) => /^mutation CreateLabels/.test(graphqlQuery(r))).length;
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
  }

  const [first, redelivery, reopened, , oneEdit, firstWithout] = rows as [EconomyRow, EconomyRow, EconomyRow, EconomyRow, EconomyRow, EconomyRow];
  const nonDependency = (r: EconomyRow) => r['issue writes'] + r['other writes'];
  const targets: Target[] = [
    {
      name: `first sync: at most one write per plan plus a constant (${SHAPE.plans} + ${FIRST_SYNC_CONSTANT}), and one per 25 labels it makes, dependency and sub-issue writes apart`,
      met: nonDependency(first) <= SHAPE.plans + FIRST_SYNC_CONSTANT + (labelRequests ?? 0),
      detail: `${first['issue writes']} issue + ${first['other writes']} other writes = ${nonDependency(first)}, of which ${labelRequests ?? 0} made the labels GraphQL names by id (25 a request); and ${first['dependency writes']} dependency writes, one per edge (${SHAPE.edges} edges): GitHub has no batch form, so these are on top of the target`,
    },
    {
      name: 'first sync: every plan issue a sub-issue, at no request of its own (created under its parent: GraphQL createIssue with parentIssueId)',
      met: underParent === SHAPE.plans && first['sub-issue writes'] === 0,
      detail: `${underParent ?? 0} plan issues created under their parent for ${SHAPE.plans} plans; ${first['sub-issue writes']} sub-issue writes`,
    },
    ...[redelivery, reopened].map((r) => ({
      name: `${r.scenario}: no write, at most ${RESYNC_MAX_READS} reads`,
      met: r.writes === 0 && r.reads <= RESYNC_MAX_READS,
      detail: `${r.writes} writes, ${r.reads} reads`,
    })),
    {
      name: 'one plan edited: one issue write',
      met: oneEdit['issue writes'] === 1 && oneEdit['dependency writes'] === 0 && oneEdit['sub-issue writes'] === 0,
      detail: `${oneEdit['issue writes']} issue writes, ${oneEdit['dependency writes']} dependency writes, ${oneEdit['other writes']} other (the new commit's check run, created and completed, and the status comment when a title changes)`,
    },
    {
      name: 'one plan edited: one blob read (the others were read by their sha, which cannot change)',
      met: editedBlobReads === 1,
      detail: `${editedBlobReads ?? 'no'} blob read${editedBlobReads === 1 ? '' : 's'} of ${generated.files.size} spec files`,
    },
    {
      name: 'first sync without native dependencies: still one write per plan plus a constant',
      met: nonDependency(firstWithout) <= SHAPE.plans + FIRST_SYNC_CONSTANT + (labelRequestsWithout ?? 0) + 1 && firstWithout['dependency writes'] <= 2,
      detail: `${nonDependency(firstWithout)} issue and other writes (${labelRequestsWithout ?? 0} of them making labels, one PATCH correcting the record of the issue whose link was refused), ${firstWithout['dependency writes']} dependency writes (those that learn they are unavailable)`,
    },
  ];
  return {
    notes: [
      `A generated spec of ${SHAPE.plans} plans in ${SHAPE.phases} phases with ${SHAPE.edges} dependencies (bench/spec-gen.ts), in ${DIR}.`,
      'Each row is one delivery through Probot; requests are counted at the HTTP level. Reads of a first sync are mostly',
      `the spec's files, ${generated.files.size} blobs read fifty to a GraphQL query; writes are the issues, one per plan, each created under the tracking issue`,
      `in one request (GraphQL createIssue with parentIssueId), plus ${FIRST_SYNC_CONSTANT} (check run x2, ${Object.keys(LABEL_COLORS).length} labels once per repository, the status comment,`,
      "the spec's tracking issue) and the `needs:` labels made before, 25 a request; dependency writes are GitHub's native issue dependencies, one request per edge.",
      "An unchanged re-sync (same commit: a redelivery, a reopen) reads the check run and the spec's issues and writes nothing.",
      "A push that leaves the spec unchanged finds the previous commit's check run for the same spec trees and carries it over: one write.",
    ],
    rows,
    targets,
    results: { shape: SHAPE, firstSyncConstant: FIRST_SYNC_CONSTANT, rows },
  };
};

/**
 * 1,000 plans with 500 dependencies in 20 phases on 64 slots: `harness simulate` puts its
 * critical path at 4.8 h and its makespan, file conflicts counted, at 7.8 h (plans taking 60%
 * of their timeout and 6 minutes to merge), a working day. Denser dependencies make a spec
 * whose critical path, not the App, decides how long it takes.
 */
const HOURS = { plans: 1_000, slots: 64, edges: 500 };
/** The peak an hour the App may ask of GitHub for a 1,000-plan spec: half of an installation's 5,000. */
const HOURS_PEAK = 2_500;

/** A whole spec's life through the App on simulated time (github-hours.ts): requests by the hour. */
const specOverHours: Section = async (log) => {
  let row: EconomyRow | undefined;
  const started = performance.now();
  const result = await simulateHours({
    ...HOURS,
    onEnd: (github) => (row = measure(github, 0, 'spec over hours', `${HOURS.plans} plans, ${HOURS.edges} dependencies, ${HOURS.slots} slots`)),
  });
  log(
    `${HOURS.plans} plans over ${result.hours} simulated hours in ${((performance.now() - started) / 1000).toFixed(0)} s: peak ${result.peak}, mean ${result.mean} an hour`,
  );
  const notModified = result.notModifiedPerHour.reduce((a, b) => a + b, 0);
  return {
    notes: [
      '',
      `A spec's life on simulated time (bench/github-hours.ts): ${HOURS.plans} generated plans opened as a spec PR, \`/harness execute all\`, every`,
      `worker run ending after its plan's duration (30-90% of its timeout_minutes), every plan PR merged 5 minutes after it opens; ${HOURS.slots} slots.`,
      `Requests the App made, counted against the rate limit, by hour: ${result.perHour.join(', ')}; conditional reads answered 304 (not counted): ${notModified}.`,
      `Finished: ${result.finished ? 'yes' : 'NO'} (${result.plansMerged} plans merged, ${result.phasesVerified} phases verified) after ${result.hours} h; first sync ${result.firstSync.requests} requests over ${result.firstSync.minutes.toFixed(0)} min.`,
      `Per delivery (median requests, 304s included): ${Object.entries(result.byEvent)
        .map(([k, v]) => `${k} ${v.medianRequests} (${v.deliveries}x)`)
        .join('; ')}.`,
    ],
    rows: row ? [{ ...row, scenario: `${row.scenario}, ${result.hours} h` }] : [],
    targets: [
      {
        name: `${HOURS.plans} plans over a working day: under ${HOURS_PEAK} requests an hour at the peak`,
        met: result.finished && result.peak < HOURS_PEAK,
        detail: `peak ${result.peak}, mean ${result.mean} an hour over ${result.hours} h, ${result.perPlan} per plan`,
      },
    ],
    results: { shape: HOURS, ...result, byRoute: result.byRoute.slice(0, 30) },
  };
};

/**
 * A busy day under `budget: { per_day_usd }`: 200 plans on 8 slots, each costing about $1 (a draw
 * between $0.50 and $1.50, recorded by its worker as plan-worker.ts does), the repository capped
 * at $40 a day; a person comments `/harness execute` again the next morning (27 h in). Beside it,
 * the same day without the cap: what it would have spent.
 */
const BUSY = { plans: 200, slots: 8, edges: 100, costUsd: 1, perDayUsd: 40, nudge: 27, hours: 40 };

const busyDay: Section = async (log) => {
  const H = 3_600_000;
  const capped = await simulateHours({
    plans: BUSY.plans,
    slots: BUSY.slots,
    edges: BUSY.edges,
    limitHours: BUSY.hours,
    budget: { costUsd: BUSY.costUsd, perDayUsd: BUSY.perDayUsd },
    nudges: [BUSY.nudge],
  });
  const free = await simulateHours({ plans: BUSY.plans, slots: BUSY.slots, edges: BUSY.edges, limitHours: 24, budget: { costUsd: BUSY.costUsd } });
  const trace = capped.spend!;
  const start = Math.min(...trace.dispatches.map((d) => d.at));
  const rolling = (spends: readonly { at: number; costUsd: number }[]) =>
    Math.max(0, ...spends.map((x) => spends.filter((y) => y.at > x.at - 24 * H && y.at <= x.at).reduce((a, y) => a + y.costUsd, 0)));
  const usd = (n: number) => `$${n.toFixed(2)}`;
  const atDispatch = Math.max(...trace.dispatches.map((d) => d.windowUsd));
  // The hold: the first gap of half a day or more between two starts.
  const times = trace.dispatches.map((d) => d.at).sort((a, b) => a - b);
  const gap = times.findIndex((t, i) => i > 0 && t - times[i - 1]! >= 12 * H);
  const day1 = trace.dispatches.filter((d) => gap === -1 || d.at < times[gap]!);
  const day2 = trace.dispatches.filter((d) => gap !== -1 && d.at >= times[gap]!);
  const lastDay1 = Math.max(...day1.map((d) => d.at));
  const notes = [...trace.heldNotes.values()];
  const freeDay = free.spend!.spends.filter((s) => s.at < start + 24 * H).reduce((a, s) => a + s.costUsd, 0);
  log(
    `busy day: ${day1.length} plans started before the hold, ${day2.length} after the window freed; ${usd(rolling(trace.spends))} the most spent in 24 h (cap ${usd(BUSY.perDayUsd)}); uncapped ${usd(freeDay)}`,
  );
  return {
    notes: [
      '',
      `A busy day (bench/github-hours.ts, budget): ${BUSY.plans} plans, ${BUSY.slots} slots, about ${usd(BUSY.costUsd)} a plan, \`budget: { per_day_usd: ${BUSY.perDayUsd} }\`; \`/harness execute\` again ${BUSY.nudge} h in.`,
      `Capped: ${day1.length} plans started in the first ${((lastDay1 - start) / H).toFixed(1)} h, then none until the window freed; ${day2.length} more from ${day2.length > 0 ? ((Math.min(...day2.map((d) => d.at)) - start) / H).toFixed(1) : '-'} h. Spend in any 24 h: at most ${usd(rolling(trace.spends))} (the plans already running when the cap was reached finish: ${BUSY.slots} slots at most); at each start the day stood at most at ${usd(atDispatch)}.`,
      `Uncapped, the same day: ${usd(freeDay)} in its first 24 h (${free.plansMerged} plans merged). Plans told on their issue that they wait at the cap: ${notes.length}, each once (${notes.filter((n) => n > 1).length} told twice).`,
    ],
    rows: [],
    targets: [
      {
        name: `no plan starts once the day's spend reaches per_day_usd ($${BUSY.perDayUsd})`,
        met: atDispatch < BUSY.perDayUsd && day1.length > 0,
        detail: `the day stood at most at ${usd(atDispatch)} when a plan started; ${day1.length} started before the hold`,
      },
      {
        name: 'each plan held at the cap is told so once on its issue',
        met: notes.length > 0 && notes.every((n) => n === 1),
        detail: `${notes.length} plans told, ${notes.filter((n) => n > 1).length} more than once`,
      },
      {
        name: 'plans start again at the first round after the window frees',
        met: day2.length > 0 && Math.min(...day2.map((d) => d.at)) - Math.min(...trace.spends.map((x) => x.at)) >= 24 * H,
        detail: `${day2.length} started from ${day2.length > 0 ? ((Math.min(...day2.map((d) => d.at)) - start) / H).toFixed(1) : '-'} h, the first spend ${((Math.min(...trace.spends.map((x) => x.at)) - start) / H).toFixed(1)} h in`,
      },
    ],
    results: {
      shape: BUSY,
      day1: day1.length,
      day2: day2.length,
      maxRollingUsd: rolling(trace.spends),
      atDispatchUsd: atDispatch,
      uncappedDayUsd: freeDay,
      notes,
    },
  };
};

/** The workers' requests too, and every GitHub limit checked on the App's and theirs together (github-workers.ts). */
const workersAndLimits: Section = async (log) => ({ rows: [], ...(await workersSection(log)) });

/** The sections of the report, in order. */
export const SECTIONS: Section[] = [specPullRequestSync, schedulingRound, specOverHours, busyDay, workersAndLimits];

const github: BenchModule = {
  name: 'github',
  description: "GitHub API economy: requests and writes per delivery on a 100-plan spec, and by the hour over a 1,000-plan spec's life",
  async run({ log }) {
    const reports: SectionReport[] = [];
    for (const section of SECTIONS) reports.push(await section(log));
    return {
      notes: reports.flatMap((r) => r.notes),
      rows: reports.flatMap((r) => r.rows),
      targets: reports.flatMap((r) => r.targets),
      results: reports.map((r) => r.results),
    };
  },
};

export default github;
