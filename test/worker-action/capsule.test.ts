import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { knowledgeForge } from '../../app/worker-action/capture.js';
import { runWorker } from '../../app/worker-action/worker.js';
import { workerForge, type WorkerDeps } from '../../app/worker-action/worker-run.js';
import { FakeGitHub } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';
import { OWNER, REPO, testLog } from '../helpers/worker-github.js';
import { isolateGit, workerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, type WorkerPlan } from '../helpers/worker-spec.js';
import { geneText } from '../engine/knowledge/genes/gene-helpers.js';

/**
 * Capsules on a runner (app/worker-action/capture.ts): a plan verified with a gene in its brief
 * files its capsule on the spec's signals PR, with the job's signals and trajectory lines.
 */

const SIGNALS = `harness/knowledge/signal/${SPEC}`;
const BASE = 'b'.repeat(40);
const GENE = 'gene-20240401-0a1b2c3d';

const GREETING: WorkerPlan = {
  id: '01-01',
  title: 'Greeting',
  checks: ['{ id: greeting, type: file_exists, path: out/greeting.txt }'],
  blocks: ['Write a signed greeting for new users into out/greeting.txt.'],
};

/** A command agent that writes the greeting; the config makes it the agent. */
const CONFIG = 'agents:\n  command:\n    command: mkdir -p out && cat > /dev/null && printf "hello\\n-- harness\\n" > out/greeting.txt\n';

let github: FakeGitHub;
let restoreGit: () => void;

beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
  github = new FakeGitHub(OWNER, REPO);
  github.defaultBranch = 'main';
  github.commit(BASE, { 'README.md': '# demo\n' });
  github.branches.set('main', BASE);
  github.issues.push({
    id: 900_003,
    number: 3,
    title: '[01-01] Plan 01-01',
    body: `<!-- harness:plan ${SPEC}/01-01 hash=0123456789abcdef -->\n**Spec** …`,
    labels: ['harness:plan', `spec:${SPEC}`, 'phase:01', 'status:running'],
    state: 'open',
    state_reason: null,
  });
  github.branches.set(`harness/${SPEC}/01-01`, BASE);
  github.install({ ownOnly: true });
});
afterAll(() => {
  nock.cleanAll();
  restoreGit();
});

describe('capsules on a runner', () => {
  it('a plan verified with a gene in its brief files its capsule on the signals PR', async () => {
    const gene = geneText({
      id: GENE,
      status: 'active',
      success_rate: 1,
      usage_count: 3,
      description: 'Sign every greeting for new users.',
      tags: ['greeting'],
      metadata: { files: ['out/greeting.txt'] },
    });
    const repo = await workerRepo(
      specRepo([GREETING], { '.github/harness.yml': CONFIG, [`.harness/knowledge/genes/${GENE}.gene.md`]: gene }),
      `harness/${SPEC}/01-01`,
    );
    const request = testOctokit().request;
    const log = testLog();
    const deps: WorkerDeps = {
      inputs: { spec: SPEC, target: { kind: 'plan', plan: '01-01' }, resume: false, agent: 'command' },
      base: 'main',
      root: repo.checkout,
      tempDir: repo.temp,
      forge: workerForge(request, { owner: OWNER, repo: REPO }, 'harness[bot]'),
      knowledge: (r) => knowledgeForge(request, r ?? { owner: OWNER, repo: REPO }),
      log,
      now: () => new Date('2024-05-01T12:30:00Z'),
      runUrl: `https://github.com/${OWNER}/${REPO}/actions/runs/301`,
    };
    const outcome = await runWorker(deps);
    expect(outcome.result).toBe('verified');

    const files = github.files(SIGNALS);
    const capsules = Object.entries(files).filter(([p]) => p.startsWith('.harness/knowledge/capsules/'));
    expect(capsules).toHaveLength(1);
    const [path, text] = capsules[0]!;
    const parsed = parseKnowledge('capsule', path.slice('.harness/knowledge/'.length), text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({
      genes: [GENE],
      steps: [{ action: 'Check greeting (file_exists)', outcome: 'success' }],
      validation: { impact_scope: 1, test_pass_rate: 1, confidence: 1 },
    });
    const lines = files['.harness/knowledge/trajectory/2024-05-01.jsonl']!.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; entry: string });
    expect(lines.map((l) => [l.type, l.entry])).toEqual([
      ['match', `genes/${GENE}.gene.md`],
      ['use', `genes/${GENE}.gene.md`],
      ['capsule', path.slice('.harness/knowledge/'.length)],
    ]);
  });
});
