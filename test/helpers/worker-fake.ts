import { join } from 'node:path';
import { FakeGitHub } from './github-repo.js';
import { SPEC, type WorkerPlan } from './worker-spec.js';

/**
 * The GitHub a dispatched worker meets for plan 01-01 of SPC-007, on the stateful fake: the
 * repository `octo-org/widgets` with `main` and the plan branch at `base`, the plan's issue #3
 * (running), and the check run the App queued at dispatch on `base`.
 */
export const OWNER = 'octo-org';
export const REPO = 'widgets';
export const BRANCH = `harness/${SPEC}/01-01`;
export const CHECK = 'harness / plan 01-01';
/** The App's check run, as dispatch created it. */
export const APP_CHECK = 9001;

/** Plan 01-01, "Greeting": one file to write, checked by file_exists. */
export function greetingPlan(extra: string[] = [], blocks: string[] = ['Write a greeting to out/greeting.txt.']): WorkerPlan {
  return { id: '01-01', title: 'Greeting', extra, checks: ['{ id: greeting, type: file_exists, path: out/greeting.txt }'], blocks };
}

export function dispatchedFake(base: string): FakeGitHub {
  const github = new FakeGitHub(OWNER, REPO);
  github.defaultBranch = 'main';
  github.branches.set('main', base);
  github.branches.set(BRANCH, base);
  github.issues.push({
    id: 900_003,
    number: 3,
    title: '[01-01] Greeting',
    body: `<!-- harness:plan ${SPEC}/01-01 hash=0123456789abcdef status=running -->\n**Spec** …`,
    labels: ['harness:plan', `spec:${SPEC}`, 'phase:01', 'status:running'],
    state: 'open',
    state_reason: null,
  });
  github.checkRuns.push({
    id: APP_CHECK,
    name: CHECK,
    head_sha: base,
    external_id: `${SPEC}/01-01`,
    status: 'queued',
    conclusion: null,
    output: { title: 'Worker dispatched', summary: '…', text: null },
    annotations: [],
  });
  return github;
}

/**
 * What a worker job's environment holds on a runner of the fake GitHub at `api`: the home (its
 * empty .gitconfig the only git config read), the repository, the ref and the run; writes
 * unthrottled, as the fake answers at once and has no limits.
 */
export function jobEnv(home: string, api: string): Record<string, string> {
  return {
    HOME: home,
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    GITHUB_API_URL: api,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_RUN_ID: '42',
    HARNESS_GITHUB_THROTTLE: 'off',
  };
}
