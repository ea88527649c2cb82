/**
 * The scheduling round's section of the GitHub API economy benchmark (bench/github.bench.ts):
 * the requests one round (app/github/schedule/round.ts) makes, reads and writes apart, on
 * generated specs of 10, 50 and 100 plans, and of 250 to show what happens past one page of
 * the issue list.
 *
 * The round runs for real, in a Probot app receiving a `check_run` completed event, against
 * a fake GitHub (nock) that answers every request the way GitHub does and counts it: GET is
 * a read, anything else a write. Plan issues carry the body and labels the spec-PR sync
 * writes (desiredIssue), so the round parses what it would parse in production. Three
 * moments of a spec's life, 4 slots:
 *   - execute all: every plan just queued (ready or blocked), nothing running;
 *   - mid-spec: the first phase merged, verified and its verification dispatched already
 *     (its phase branch exists), 2 plans running, the rest queued;
 *   - slots full: 4 plans running, the rest queued: nothing to start.
 * Writes follow what there is to do (5 per plan started, and the status comment when what it
 * shows changed), not the spec's size; the target
 * is that reads do not grow with the plans, up to the 100 a page of the issue list holds.
 *
 *   npm run bench -- github
 */
import nock from 'nock';
import { Probot, ProbotOctokit } from 'probot';
import { generateSpec } from './spec-gen.js';
import type { EconomyRow, Section } from './github.bench.js';
import { median, type Target } from './lib.js';
import { matchPlanIssues } from '../app/engine/forge/match-issues.js';
import { desiredIssue, withMarkerRecord } from '../app/engine/forge/plan-issue.js';
import { specFromIssues } from '../app/engine/forge/spec-from-issues.js';
import { statusComment } from '../app/engine/forge/status-comment.js';
import { ISSUE_BODY_LIMIT } from '../app/engine/forge/limits.js';
import { recordedStatus, statusLabel, type StatusValue } from '../app/engine/forge/names.js';
import { loadSpec } from '../app/engine/core/spec/load.js';
import type { Spec } from '../app/engine/core/spec/model.js';
import { scheduleRound, type RoundResult } from '../app/github/schedule/round.js';
import { PLAN_READING } from '../app/engine/importers/dialects.js';
import { AppMemory, withMemory } from '../app/github/app-memory.js';
import { skippingClock } from '../test/helpers/app-clock.js';

const SIZES = [10, 50, 100, 250];
const PAGE_TARGET = 100;
const SLOTS = 4;
const RUNS = 5;
const API = 'https://api.github.com';
const OWNER = 'acme';
const REPO = 'app';
const BASE_SHA = 'b'.repeat(40);
const SPEC_PR = 2;
const COMMENT_ID = 900;

interface PlanState {
  status?: StatusValue;
  closed?: boolean;
}

interface Scenario {
  name: string;
  states(spec: Spec): Map<string, PlanState>;
}

/** Queued plans carry what `/harness execute` gives them: ready when all they need is satisfied. */
function queue(spec: Spec, states: Map<string, PlanState>): Map<string, PlanState> {
  const satisfied = (id: string) => states.get(id)?.closed === true;
  for (const p of spec.plans) if (!states.has(p.id)) states.set(p.id, { status: p.dependsOn.every(satisfied) ? 'ready' : 'blocked' });
  return states;
}

const SCENARIOS: Scenario[] = [
  { name: 'execute all', states: (spec) => queue(spec, new Map()) },
  {
    name: 'mid-spec',
    states: (spec) => {
      const states = new Map<string, PlanState>();
      const first = new Set(spec.phases[0]!.plans);
      // Plans are generated in a topological order: the first phase needs nothing later.
      for (const id of first) states.set(id, { status: 'verified', closed: true });
      spec.plans
        .filter((p) => !first.has(p.id))
        .slice(0, 2)
        .forEach((p) => states.set(p.id, { status: 'running' }));
      return queue(spec, states);
    },
  },
  {
    name: 'slots full',
    states: (spec) => {
      const states = new Map<string, PlanState>();
      spec.plans.slice(0, SLOTS).forEach((p) => states.set(p.id, { status: 'running' }));
      return queue(spec, states);
    },
  },
];

function makeSpec(plans: number): { spec: Spec; texts: Map<string, string> } {
  const generated = generateSpec({ plans, phases: Math.max(2, Math.round(plans / 10)), edges: Math.round(plans * 1.5) });
  const encoder = new TextEncoder();
  const loaded = loadSpec(
    [...generated.files].map(([path, text]) => ({ path, bytes: encoder.encode(text) })),
    PLAN_READING,
  );
  if (!loaded.spec) throw new Error(`the generated spec of ${plans} plans did not load`);
  return { spec: loaded.spec, texts: generated.files };
}

function issuesFor(spec: Spec, texts: Map<string, string>, states: Map<string, PlanState>) {
  const numbers = new Map(spec.plans.map((p, i) => [p.id, i + 1]));
  return spec.plans.map((plan, i) => {
    const desired = desiredIssue({
      spec,
      plan,
      planText: texts.get(plan.file)!,
      specPath: `docs/specs/${spec.id}`,
      blobBase: `https://github.com/${OWNER}/${REPO}/blob/main`,
      issueNumbers: numbers,
    });
    const state = states.get(plan.id) ?? {};
    const labels = [...desired.labels, ...(state.status ? [statusLabel(state.status)] : [])];
    return {
      id: 10_000 + i,
      number: i + 1,
      title: desired.title,
      // As the spec-PR sync writes it: the spec PR (#2) whose status comment rounds refresh; a merged plan's closed with the App's record of its PR;
      // every status the App's record (`status=`) with the label its view.
      body: withMarkerRecord(
        withMarkerRecord(withMarkerRecord(desired.body, 'pr', String(SPEC_PR)), 'verified', state.closed ? String(5_000 + i) : undefined),
        'status',
        state.status ? recordedStatus(state.status) : undefined,
      ),
      // As GitHub lists issues: each with its GraphQL node id, and each label with its own (a round's status writes name them).
      node_id: `I_${10_000 + i}`,
      html_url: `https://github.com/${OWNER}/${REPO}/issues/${i + 1}`,
      state: state.closed ? 'closed' : 'open',
      state_reason: state.closed ? 'completed' : null,
      labels: labels.map((name) => ({ name, node_id: `LA_${name}` })),
      // Opened by the App, as the sync opens them: an issue anyone else opened is not a plan's.
      user: { login: 'harness[bot]', type: 'Bot' },
    };
  });
}

interface Counted {
  reads: number;
  writes: number;
  requests: string[];
}

/**
 * The spec PR's status comment as the app renders it for the issues as they are before the
 * round: a round that changes no status finds it current and writes nothing.
 */
function statusCommentBefore(spec: string, issues: ReturnType<typeof issuesFor>): string {
  const tracked = issues.map((i) => ({
    id: i.id,
    number: i.number,
    title: i.title,
    body: i.body,
    labels: i.labels.map((l) => l.name),
    state: i.state as 'open' | 'closed',
    stateReason: i.state_reason,
  }));
  return statusComment(specFromIssues(spec, tracked)!, matchPlanIssues(spec, tracked).byPlan, ISSUE_BODY_LIMIT);
}

/** A fake GitHub for one round: answers as GitHub does, counts every request. */
function fakeGitHub(issues: ReturnType<typeof issuesFor>, claimedPhases: string[], spec: string): Counted {
  let comment = statusCommentBefore(spec, issues);
  const counted: Counted = { reads: 0, writes: 0, requests: [] };
  const count = (method: string, uri: string, query?: string) => {
    // A GraphQL query (who the token is, the labels' ids) reads; it is a POST only because GraphQL always is. A mutation writes.
    if (method === 'GET' || (uri === '/graphql' && !/^\s*mutation\b/.test(query ?? ''))) counted.reads++;
    else counted.writes++;
    counted.requests.push(
      `${method} ${decodeURIComponent(uri.split('?')[0]!)}${uri === '/graphql' && /^\s*mutation\b/.test(query ?? '') ? ' (mutation)' : ''}`,
    );
  };
  const repo = `/repos/${OWNER}/${REPO}`;
  nock(API)
    .persist()
    .get(/.*/)
    .reply((uri) => {
      count('GET', uri);
      const url = new URL(uri, API);
      const path = decodeURIComponent(url.pathname);
      if (path === `${repo}/contents/.github/harness.yml`) return [200, `slots: ${SLOTS}\n`, { 'content-type': 'application/vnd.github.raw; charset=utf-8' }];
      if (path === `${repo}/issues`) {
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        const page = Number(url.searchParams.get('page') ?? 1);
        const headers: Record<string, string> = {};
        if (page * perPage < issues.length) {
          const next = new URL(url);
          next.searchParams.set('page', String(page + 1));
          headers.link = `<${next.href}>; rel="next"`;
        }
        return [200, issues.slice((page - 1) * perPage, page * perPage), headers];
      }
      if (path === `${repo}/issues/${SPEC_PR}/comments`) return [200, [{ id: COMMENT_ID, user: { login: 'harness[bot]', type: 'Bot' }, body: comment }]];
      // A verified plan's merged PR, which the round looks for where the record is missing (verified-record.ts): none here.
      if (path === `${repo}/pulls`) return [200, []];
      if (path === `${repo}/git/ref/heads/main`) return [200, { ref: 'refs/heads/main', object: { sha: BASE_SHA, type: 'commit' } }];
      if (path.startsWith(`${repo}/git/matching-refs/heads/harness/${spec}/phase-`)) {
        return [200, claimedPhases.map((ph) => ({ ref: `refs/heads/harness/${spec}/phase-${ph}`, object: { sha: BASE_SHA } }))];
      }
      return [404, { message: 'Not Found' }];
    })
    .post(/.*/)
    .reply((uri, body) => {
      const query = uri === '/graphql' ? String((body as { query?: unknown }).query ?? '') : undefined;
      count('POST', uri, query);
      if (uri.endsWith('/dispatches')) return [204, ''];
      // Who the token belongs to (the status comment is trusted only when the App's bot wrote it).
      if (uri === '/graphql') {
        // A round's status writes together (gateway setStatuses): every aliased label mutation done, as GitHub answers them.
        const variables = ((body as { variables?: Record<string, string> }).variables ?? {}) as Record<string, string>;
        // The labels' ids by name (labels.ts, knowLabels), as GitHub's node ids are: opaque, stable.
        if (/^query Labels/.test(query!))
          return [
            200,
            {
              data: {
                repository: {
                  id: 'R_bench',
                  ...Object.fromEntries(
                    [...query!.matchAll(/(\w+): label\(name: \$(\w+)\)/g)].map((m) => [m[1], { id: `LA_${variables[m[2]!]}`, name: variables[m[2]!] }]),
                  ),
                },
              },
            },
          ];
        if (/^\s*mutation\b/.test(query!))
          return [200, { data: Object.fromEntries([...query!.matchAll(/(\w+): (?:add|remove)Labels\w*\(/g)].map((m) => [m[1], { clientMutationId: null }])) }];
        return [200, { data: { viewer: { login: 'harness[bot]' } } }];
      }
      // POST /issues/{n}/labels answers with the issue's labels; the round reads nothing from it.
      if (/\/issues\/\d+\/labels$/.test(uri)) return [200, ((body as { labels: string[] }).labels ?? []).map((name) => ({ name }))];
      if (uri.endsWith('/check-runs'))
        return [201, { id: 1, ...(body as object), external_id: null, conclusion: null, output: { title: null, summary: null, annotations_count: 0 } }];
      return [201, { ref: (body as { ref: string }).ref, object: { sha: BASE_SHA } }];
    })
    .delete(/.*/)
    .reply((uri) => {
      count('DELETE', uri);
      // DELETE /issues/{n}/labels/{name}: the labels left, which the round does not read either.
      return [200, []];
    })
    .patch(/.*/)
    .reply((uri, body) => {
      count('PATCH', uri);
      if (uri.endsWith(`/issues/comments/${COMMENT_ID}`)) {
        comment = (body as { body: string }).body;
        return [200, { id: COMMENT_ID, user: { login: 'harness[bot]', type: 'Bot' }, body: comment }];
      }
      const n = Number(uri.split('/').pop());
      const issue = issues.find((i) => i.number === n)!;
      return [200, { ...issue, ...(body as object), labels: ((body as { labels?: string[] }).labels ?? []).map((name) => ({ name })) }];
    });
  return counted;
}

function checkRunEvent(spec: string) {
  return {
    id: 'bench',
    name: 'check_run',
    payload: {
      action: 'completed',
      check_run: { id: 1, name: 'harness / plan 01-01', external_id: `${spec}/01-01`, status: 'completed', conclusion: 'success', head_sha: BASE_SHA },
      repository: {
        id: 1,
        name: REPO,
        full_name: `${OWNER}/${REPO}`,
        owner: { login: OWNER },
        default_branch: 'main',
        html_url: `https://github.com/${OWNER}/${REPO}`,
      },
      sender: { login: 'harness[bot]', type: 'Bot' },
    },
  } as never;
}

async function oneRound(
  spec: Spec,
  issues: ReturnType<typeof issuesFor>,
  claimedPhases: string[],
): Promise<{ counted: Counted; result: RoundResult; ms: number }> {
  const counted = fakeGitHub(issues, claimedPhases, spec.id);
  // An App that remembers nothing (a round's worst case): what one remembers is counted in the day-long section.
  const memory = new AppMemory({ clock: skippingClock() });
  let result: RoundResult | undefined;
  const probot = new Probot({
    githubToken: 'bench-token',
    logLevel: 'fatal',
    Octokit: ProbotOctokit.defaults((options: Record<string, unknown>) => ({
      ...options,
      // As the App's Octokit (app/github/app-octokit.ts): no throttling; no retries, as in the tests.
      throttle: { ...(options.throttle as object), enabled: false },
      retry: { enabled: false },
    })),
  });
  await probot.load((app) => {
    withMemory(app, memory).on('check_run.completed', async (context) => {
      result = await scheduleRound(context, spec.id);
    });
  });
  const started = performance.now();
  await probot.receive(checkRunEvent(spec.id));
  const ms = performance.now() - started;
  nock.cleanAll();
  return { counted, result: result!, ms };
}

/** One row per spec size and moment, in the columns every section of the report shares. */
export const schedulingRound: Section = async (log) => {
  const S = 'scheduling round';
  nock.disableNetConnect();
  const rows: EconomyRow[] = [];
  const results: unknown[] = [];
  const reads = new Map<string, Map<number, number>>();
  try {
    for (const plans of SIZES) {
      const { spec, texts } = makeSpec(plans);
      for (const scenario of SCENARIOS) {
        const states = scenario.states(spec);
        const issues = issuesFor(spec, texts, states);
        const complete = spec.phases.filter((ph) => ph.plans.every((id) => states.get(id)?.closed)).map((ph) => ph.id);
        const times: number[] = [];
        let last: Awaited<ReturnType<typeof oneRound>> | undefined;
        for (let i = 0; i < RUNS; i++) {
          last = await oneRound(spec, issues, complete);
          times.push(last.ms);
        }
        const { counted, result } = last!;
        log(`${plans} plans, ${scenario.name}: ${counted.reads} reads, ${counted.writes} writes`);
        if (!reads.has(scenario.name)) reads.set(scenario.name, new Map());
        reads.get(scenario.name)!.set(plans, counted.reads);
        // Status writes: the label added (POST …/labels) and the old one removed (DELETE …/labels/{name}).
        // Status writes: REST's label requests, or the round's one GraphQL request for them all (gateway setStatuses).
        const labelWrites = counted.requests.filter(
          (r) => /^(PATCH|POST|DELETE) \/repos\/[^/]+\/[^/]+\/issues\/\d+(\/labels(\/.+)?)?$/.test(r) || r === 'POST /graphql (mutation)',
        ).length;
        // "other writes": per plan started, the claim, the dispatch and the check run; and the status comment when it changed.
        rows.push({
          section: S,
          scenario: `${plans} plans, ${scenario.name}: ${result.dispatched.length} started`,
          requests: counted.reads + counted.writes,
          reads: counted.reads,
          writes: counted.writes,
          'issue writes': labelWrites,
          'dependency writes': 0,
          'sub-issue writes': 0,
          'other writes': counted.writes - labelWrites,
        });
        results.push({
          plans,
          phases: spec.phases.length,
          scenario: scenario.name,
          reads: counted.reads,
          writes: counted.writes,
          dispatched: result.dispatched,
          relabelled: result.relabelled.length,
          requests: counted.requests,
          medianMs: median(times),
        });
      }
    }
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
  }

  const upToPage = SIZES.filter((n) => n <= PAGE_TARGET);
  const targets: Target[] = [...reads].map(([scenario, bySize]) => {
    const beyond = SIZES.filter((n) => n > PAGE_TARGET).map((n) => `${n} plans: ${bySize.get(n)}`);
    return {
      name: `scheduling round, ${scenario}: reads do not depend on the number of plans (up to ${PAGE_TARGET})`,
      met: new Set(upToPage.map((n) => bySize.get(n))).size === 1,
      detail: `${upToPage.map((n) => `${n} plans: ${bySize.get(n)}`).join(', ')}${beyond.length > 0 ? `; past a page, ${beyond.join(', ')} (one more read per 100 plans)` : ''}`,
    };
  });
  return {
    notes: [
      '',
      `Scheduling round: one round in a Probot app (a check_run completed) against a fake GitHub that counts requests, on generated specs of ${SIZES.join(', ')} plans, phases of about 10 plans (at least 2), ${SLOTS} slots.`,
      'Reads: .github/harness.yml, the plan issues (100 a page), the base head (only when something starts), the phase branches (only once a phase is complete).',
      'Writes: per plan started, the claim (POST git/refs), the dispatch and the check run (other writes) and the status write (issue writes):',
      "the App's record `status=running` on the marker line (the body), then status:running added, then the queued status removed,",
      'in one GraphQL request for the round where the node ids are known (the race-safe form: the whole label list is never written back);',
      'the same two per queued plan whose ready/blocked status changed (none in these moments: /harness execute set them right).',
    ],
    rows,
    targets,
    results: { sizes: SIZES, slots: SLOTS, runs: RUNS, rounds: results },
  };
};
