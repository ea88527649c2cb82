import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { endApp } from './helpers/app-process.js';
import { takeOpenApiViolations } from './helpers/github-openapi.js';
import { enterWorkerDir, sweepWorkerDir } from './helpers/temp.js';

// Each test starts from a new App, as a restarted process does: nothing remembered from the last one.
// Its pace waits on skipped time, not the test's (helpers/app-clock.ts, restartApp's default).
beforeEach(() => endApp());

// A REST request GitHub's OpenAPI description does not allow, or a status it does not document
// (helpers/github-openapi.ts: the fake GitHub and the tests' Octokit check each one), fails the
// test that made it, as a GraphQL request GitHub's schema rejects does; one made by a file's own
// beforeAll or afterAll fails the file.
function failOnOpenApiViolations(): void {
  const violations = takeOpenApiViolations();
  if (violations.length > 0) throw new Error(`GitHub's REST API, as its OpenAPI description has it, was not followed:\n${violations.join('\n')}`);
}
afterEach(failOnOpenApiViolations);
afterAll(failOnOpenApiViolations);

// Files share their worker's modules (isolate: false): a file's nock interceptors and its
// disableNetConnect() must not outlive it, or the next file's 127.0.0.1 servers are refused.
// Only loopback is let through again: no test reaches beyond this machine.
afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[?::1\]?)(:\d+)?$/.test(host));
});

// What this file and the processes it starts make in os.tmpdir() goes to this worker's own
// directory, emptied when the file ends (registered first, so it runs after the file's own afterAll).
const workerTmp = enterWorkerDir();
// Where harness run keeps worktrees beside a repository (app/runner/repo.ts, stateRoot): with the
// file's other temporary things, never the home of whoever runs the tests.
process.env.HARNESS_STATE_DIR = join(tmpdir(), 'harness-state');
// Vitest reads the hook's first parameter as a fixtures pattern; the file is the second.
// eslint-disable-next-line no-empty-pattern
if (workerTmp) afterAll(({}, suite) => sweepWorkerDir(workerTmp, 'filepath' in suite ? suite.filepath : suite.file.filepath));
