import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from '../../../../app/engine/core/documents/parse.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import type { Check, Plan, Spec } from '../../../../app/engine/core/spec/model.js';
import { runCheck } from '../../../../app/engine/core/verify/checks.js';
import { humanCheckpoint } from '../../../../app/engine/core/verify/human-checkpoint.js';
import { verifyPhase, verifyPlan } from '../../../../app/engine/core/verify/levels.js';
import type { ServerHandle, VerifyPorts } from '../../../../app/engine/core/verify/ports.js';
import { renderVerification } from '../../../../app/engine/core/verify/render-verification.js';
import { testsRan } from '../../../../app/engine/core/verify/tests-ran.js';
import { PathEscapeError } from '../../../../app/machine/verify-files.js';
import { localVerifyPorts, type LocalVerifyPorts } from '../../../../app/machine/verify-ports.js';
import { specFiles } from '../../../helpers/spec.js';
import { addServer, check, tempRepo } from '../../../fixtures/verify/repo.js';
import { ROOT } from '../../../helpers/paths.js';
import { lifeline } from '../../../helpers/gate.js';

/** One checkout shared by the check-level tests: real files, real processes. */
const GOOD_MODULE = `import { hash } from './crypto.js';

// The login service.
export interface Credentials { user: string; password: string }

export async function login(c: Credentials): Promise<string> {
  const digest = await hash(c.password);
  if (digest.length === 0) throw new Error('empty digest');
  return \`token-\${c.user}-\${digest.slice(0, 8)}\`;
}

export const logout = (token: string): boolean => token.startsWith('token-');
export default login;
`;

const FILES: Record<string, string> = {
  'src/auth/login.ts': GOOD_MODULE,
  'src/auth/crypto.ts':
    'export async function hash(s: string): Promise<string> {\n  const n = [...s].reduce((a, c) => a + c.charCodeAt(0), 0);\n  return n.toString(16);\n}\n',
  'src/auth/stub.ts': "export function login(): string {\n  // TODO: implement\n  throw new Error('Not implemented');\n}\nexport function logout() {}\n",
  'src/auth/null.tsx': 'import React from "react";\n\nexport function Panel() {\n  return null;\n}\n\nexport const Empty = () => null;\n',
  'src/auth/tiny.ts': 'export const x = 1;\n',
  'src/auth/commented.ts': '// export function login() {}\n/* export const logout = 1; */\nconst a = 1;\nconst b = 2;\nexport const c = a + b;\n',
  'src/index.ts': "export * from './auth/login.js';\nexport { hash as digest } from './auth/crypto.js';\nexport const version = '1.0.0';\n",
  'lib/cjs.js':
    "'use strict';\nfunction add(a, b) {\n  return a + b;\n}\nmodule.exports = { add, sub: (a, b) => a - b, mul(a, b) { return a * b; } };\nmodule.exports.div = (a, b) => a / b;\n",
  'app/models.py':
    '"""Models."""\nimport dataclasses\n\n\n@dataclasses.dataclass\nclass User:\n    name: str\n\n\ndef find_user(name):\n    return User(name)\n\n\ndef delete_user(name):\n    """Remove a user."""\n    pass\n',
  'app/views.py': 'from app.models import find_user\n\n\ndef show(name):\n    user = find_user(name)\n    return user.name\n',
  'src/ui/Chat.tsx':
    "import { useEffect } from 'react';\nexport function Chat() {\n  // fetch('/api/chat') is to come\n  useEffect(() => {}, []);\n  return 'chat';\n}\n",
  'src/ui/Page.tsx':
    "import { Chat } from '@/ui/Chat';\nexport function Page() {\n  useEffect(() => { fetch('/api/chat').then((r) => r.json()); }, []);\n  return Chat();\n}\n",
  'README.md': '# Demo\n\nThe login service lives in src/auth.\n',
  'tests/ok.test.mjs': "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.equal(1 + 1, 2));\n",
  'tests/bad.test.mjs': "import test from 'node:test';\nimport assert from 'node:assert';\ntest('breaks', () => assert.equal(1 + 1, 3));\n",
  'empty-tests/.keep': '',
};

let repo: ReturnType<typeof tempRepo>;
let ports: LocalVerifyPorts;

beforeAll(() => {
  repo = tempRepo(FILES);
  addServer(repo.root);
  execFileSync('mkfifo', [join(repo.root, 'pipe')]);
  ports = localVerifyPorts(repo.root);
});

afterAll(async () => {
  await ports.close();
  repo.remove();
});

async function run(c: Check, ctx = {}) {
  return runCheck(c, ports, ctx);
}

describe('file_exists and file_contains', () => {
  it('file_exists passes for a file and a directory, and fails for a missing path', async () => {
    expect(await run(check({ id: 'f', type: 'file_exists', path: 'src/auth/login.ts' }))).toMatchObject({
      id: 'f',
      type: 'file_exists',
      status: 'pass',
      evidence: 'src/auth/login.ts exists (file)',
    });
    expect((await run(check({ id: 'd', type: 'file_exists', path: 'src/auth' }))).evidence).toBe('src/auth exists (directory)');
    expect(await run(check({ id: 'm', type: 'file_exists', path: 'src/auth/missing.ts' }))).toMatchObject({
      status: 'fail',
      evidence: 'src/auth/missing.ts does not exist',
    });
  });

  it('file_contains needs the literal and the pattern, and says where it found them', async () => {
    const ok = await run(check({ id: 'c', type: 'file_contains', path: 'src/auth/login.ts', contains: 'export async function login', pattern: 'logout\\s*=' }));
    expect(ok.status).toBe('pass');
    expect(ok.evidence).toContain('contains "export async function login" at line 6');
    expect(ok.evidence).toContain('matches /logout\\s*=/ at line 12');
    const literal = await run(check({ id: 'c', type: 'file_contains', path: 'src/auth/login.ts', contains: 'refreshToken' }));
    expect(literal).toMatchObject({ status: 'fail', evidence: 'src/auth/login.ts does not contain "refreshToken"' });
    const pattern = await run(check({ id: 'c', type: 'file_contains', path: 'src/auth/login.ts', contains: 'login', pattern: '^export function refresh' }));
    expect(pattern).toMatchObject({ status: 'fail', evidence: 'src/auth/login.ts has no match for /^export function refresh/' });
    expect((await run(check({ id: 'c', type: 'file_contains', path: 'nope.ts', contains: 'x' }))).evidence).toBe('nope.ts does not exist');
  });
});

describe('command_output, build_succeeds, tests_pass', () => {
  it('command_output checks the exit code (default 0), contains and matches, over stdout and stderr', async () => {
    const ok = await run(
      check({
        id: 'o',
        type: 'command_output',
        command: 'echo "version 1.4.2"; echo warn >&2',
        expect: { contains: 'version', matches: '\\d+\\.\\d+\\.\\d+' },
      }),
    );
    expect(ok.status).toBe('pass');
    expect(ok.evidence).toBe('exit 0; output ends:\nversion 1.4.2\nwarn');
    const code = await run(check({ id: 'o', type: 'command_output', command: 'echo broken; exit 3', expect: {} }));
    expect(code).toMatchObject({ status: 'fail', evidence: 'exit 3, expected exit 0; output ends:\nbroken' });
    const three = await run(check({ id: 'o', type: 'command_output', command: 'exit 3', expect: { exit_code: 3 } }));
    expect(three.status).toBe('pass');
    const missing = await run(check({ id: 'o', type: 'command_output', command: 'echo hello', expect: { contains: 'goodbye' } }));
    expect(missing.evidence).toBe('exit 0 but the output does not contain "goodbye"; output ends:\nhello');
    const nomatch = await run(check({ id: 'o', type: 'command_output', command: 'echo hello', expect: { matches: '^\\d+$' } }));
    expect(nomatch.evidence).toContain('has no match for /^\\d+$/');
  });

  it('commands run in the checkout, or in cwd under it', async () => {
    const here = await run(check({ id: 'p', type: 'command_output', command: 'ls src', expect: { contains: 'auth' } }));
    expect(here.status).toBe('pass');
    const sub = await run(check({ id: 'p', type: 'command_output', command: 'ls', cwd: 'src/auth', expect: { contains: 'login.ts' } }));
    expect(sub.status).toBe('pass');
    const out = await run(check({ id: 'p', type: 'command_output', command: 'ls', cwd: '../..', expect: {} }));
    expect(out.status).toBe('fail');
    expect(out.evidence).toContain('outside the checkout');
  });

  it('build_succeeds passes on exit 0 and fails with the exit code and the output tail', async () => {
    expect((await run(check({ id: 'b', type: 'build_succeeds', command: 'node -e "console.log(\'built\')"' }))).evidence).toBe('exit 0; output ends:\nbuilt');
    const bad = await run(check({ id: 'b', type: 'build_succeeds', command: 'echo "src/a.ts(3,1): error TS2304" >&2; exit 2' }));
    expect(bad).toMatchObject({ status: 'fail', evidence: 'exit 2\nfirst error: src/a.ts(3,1): error TS2304\noutput ends:\nsrc/a.ts(3,1): error TS2304' });
  });

  it('tests_pass passes when tests ran and passed (node --test, for real)', async () => {
    const r = await run(check({ id: 't', type: 'tests_pass', command: 'node --test tests/ok.test.mjs' }));
    expect(r.status).toBe('pass');
    expect(r.evidence).toMatch(/^exit 0; tests ran \("# pass 1"\)/);
  });

  it('tests_pass fails when a test fails', async () => {
    const r = await run(check({ id: 't', type: 'tests_pass', command: 'node --test tests/bad.test.mjs' }));
    expect(r.status).toBe('fail');
    // The assertion's message, whole, above the runner's tally.
    expect(r.evidence).toMatch(/^exit 1\nfirst error: error: '2 == 3'\noutput ends:\n/);
    expect(r.evidence).toContain('# fail 1');
  });

  it('tests_pass fails a runner that exits 0 having run no tests (node --test on an empty directory)', async () => {
    const r = await run(check({ id: 't', type: 'tests_pass', command: 'cd empty-tests && node --test' }));
    expect(r.status).toBe('fail');
    expect(r.evidence).toMatch(/^exit 0 but no tests ran \(".*"\); a test command that runs nothing is not green/);
  });

  it('tests_pass recognises "ran nothing" from vitest, jest, mocha, pytest, go test and cargo', () => {
    const none = [
      'TAP version 13\n1..0\n# tests 0\n# pass 0\n# fail 0',
      'ℹ tests 0\nℹ suites 0\nℹ pass 0',
      'No test files found, exiting with code 0',
      ' Test Files  1 skipped (1)\n      Tests  2 skipped (2)\n   Start at  10:00:00',
      'No tests found, exiting with code 0\nRun with `--passWithNoTests` to exit with code 0',
      'Test Suites: 0 total\nTests:       0 total\nSnapshots:   0 total',
      '\n  0 passing (2ms)\n',
      '============================ no tests ran in 0.01s =============================',
      '=========== 3 skipped in 0.02s ===========',
      '?   \texample.com/app\t[no test files]',
      'ok  \texample.com/app\t0.002s [no tests to run]',
      'running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored',
    ];
    for (const output of none) expect(testsRan(output).verdict, output).toBe('none');
    const ran = [
      '# tests 3\n# pass 3\n# fail 0',
      ' Test Files  2 passed (2)\n      Tests  14 passed (14)',
      'Tests:       1 skipped, 5 passed, 6 total',
      '  12 passing (40ms)\n  1 pending',
      '========== 7 passed, 1 skipped in 0.12s ==========',
      'ok  \texample.com/app\t0.013s\n?   \texample.com/app/cmd\t[no test files]',
      'test result: ok. 5 passed; 0 failed; 0 ignored',
      '48 passed, 0 failed',
    ];
    for (const output of ran) expect(testsRan(output).verdict, output).toBe('ran');
    expect(testsRan('all good').verdict).toBe('unknown');
  });

  it("tests_pass fails a command whose output shows no tests, whatever its exit code (the README's promise)", async () => {
    const r = await run(check({ id: 't', type: 'tests_pass', command: 'echo "checked 12 things"' }));
    expect(r.status).toBe('fail');
    expect(r.evidence).toBe(
      'exit 0, but its output shows no tests ran: no test runner\'s summary (such as "# pass 3", "Tests  3 passed", "3 passed in 0.12s") is in it; use build_succeeds or command_output for a command that is not a test runner; output ends:\nchecked 12 things',
    );
  });

  it('a hanging command times out and its whole process group is killed', async () => {
    const life = lifeline(join(mkdtempSync(join(tmpdir(), 'harness-hang-')), 'life'));
    const r = await run(
      check({ id: 'h', type: 'command_output', command: `${life.hold}; sleep 600 & echo started; sleep 600`, timeout_seconds: 1, expect: {} }),
    );
    expect(r.status).toBe('fail');
    expect(r.evidence).toMatch(/^timed out after 1(\.\d)? s and was killed, expected exit 0; output ends:\nstarted$/);
    // Its background child, in its group, was killed with it (the lifeline's holders all ended): the check waited for neither sleep.
    await life.gone;
  });

  it('a command that exits but leaves a child holding its output does not hang the check', async () => {
    const life = lifeline(join(mkdtempSync(join(tmpdir(), 'harness-hold-')), 'life'));
    const r = await run(check({ id: 'bg', type: 'build_succeeds', command: `${life.hold}; (sleep 600 &) ; echo done` }));
    expect(r).toMatchObject({ status: 'pass', evidence: 'exit 0; output ends:\ndone' });
    // The check ended, and ended the child with the command's group (the lifeline's holders all
    // ended): it could not have waited for a ten-minute sleep to finish by itself.
    await life.gone;
  });

  it('keeps only the tail of a large output', async () => {
    const small = localVerifyPorts(repo.root, { maxOutputBytes: 1000 });
    const r = await small.exec('seq 1 100000', { timeoutMs: 10_000 });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(1100);
    expect(r.stdout).toMatch(/^\[… \d+ bytes of earlier output cut …\]\n/);
    expect(r.stdout.trimEnd().endsWith('\n100000')).toBe(true);
  });
});

describe('artifact: a file of substance, not a stub', () => {
  it('passes a real module: lines, exports (function, const, default), contains', async () => {
    const r = await run(
      check({ id: 'a', type: 'artifact', path: 'src/auth/login.ts', min_lines: 8, exports: ['login', 'logout', 'Credentials', 'default'], contains: 'hash(' }),
    );
    expect(r.status).toBe('pass');
    expect(r.evidence).toBe(
      'src/auth/login.ts: 9 substantive lines (min 8); exports login, logout, Credentials, default; contains "hash(" at line 7; no stub markers',
    );
  });

  it('fails a stub and names its markers', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/auth/stub.ts', exports: ['login', 'logout'] }));
    expect(r.status).toBe('fail');
    expect(r.evidence).toContain('looks like a stub');
    expect(r.evidence).toContain('line 2 says TODO: implement');
    expect(r.evidence).toContain("line 3 says not implemented: throw new Error('Not implemented');");
    expect(r.evidence).toContain('line 5: logout has an empty body');
  });

  it('fails functions whose whole body returns null or nothing', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/auth/null.tsx', exports: ['Panel', 'Empty'] }));
    expect(r.status).toBe('fail');
    expect(r.evidence).toContain('line 3: Panel only does return null;');
    expect(r.evidence).toContain('line 7: Empty only returns null');
  });

  it('fails a missing export and names it', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/auth/login.ts', exports: ['login', 'refresh', 'revoke'] }));
    expect(r).toMatchObject({ status: 'fail', evidence: 'src/auth/login.ts: does not export refresh, revoke' });
  });

  it('fails a file below the line floor, by default 3 substantive lines', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/auth/tiny.ts' }));
    expect(r).toMatchObject({ status: 'fail', evidence: 'src/auth/tiny.ts: 1 substantive lines, fewer than 3' });
  });

  it('does not count comments as lines or as exports', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/auth/commented.ts', min_lines: 3, exports: ['login', 'logout', 'c'] }));
    expect(r).toMatchObject({ status: 'fail', evidence: 'src/auth/commented.ts: does not export login, logout' });
  });

  it('follows export * from into the repository, and reads export { a as b }', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/index.ts', exports: ['login', 'logout', 'digest', 'version'] }));
    expect(r.status).toBe('pass');
    const def = await run(check({ id: 'a', type: 'artifact', path: 'src/index.ts', exports: ['default'] }));
    expect(def.evidence).toBe('src/index.ts: does not export default');
  });

  it('reads CommonJS exports', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'lib/cjs.js', exports: ['add', 'sub', 'mul', 'div', 'default'] }));
    expect(r.status).toBe('pass');
  });

  it('reads Python top-level definitions, and fails a def whose body is only pass', async () => {
    const ok = await run(check({ id: 'a', type: 'artifact', path: 'app/views.py', exports: ['show', 'find_user'] }));
    expect(ok.status).toBe('pass');
    const stub = await run(check({ id: 'a', type: 'artifact', path: 'app/models.py', exports: ['User', 'find_user', 'delete_user'] }));
    expect(stub).toMatchObject({ status: 'fail', evidence: 'app/models.py: looks like a stub: line 14: delete_user only does pass' });
  });

  it('fails a missing artifact', async () => {
    expect((await run(check({ id: 'a', type: 'artifact', path: 'src/nope.ts' }))).evidence).toBe('src/nope.ts does not exist');
  });
});

describe('key_link: one file really wired to another', () => {
  it('passes when the from file imports the to file (relative, .js for .ts)', async () => {
    const r = await run(check({ id: 'k', type: 'key_link', from: 'src/auth/login.ts', to: 'src/auth/crypto.ts', via: 'hash' }));
    expect(r).toMatchObject({ status: 'pass', evidence: 'src/auth/login.ts line 1 imports src/auth/crypto.ts as "./crypto.js" (via hash)' });
  });

  it('resolves Python and aliased imports', async () => {
    expect((await run(check({ id: 'k', type: 'key_link', from: 'app/views.py', to: 'app/models.py' }))).status).toBe('pass');
    expect((await run(check({ id: 'k', type: 'key_link', from: 'src/ui/Page.tsx', to: 'src/ui/Chat.tsx' }))).evidence).toBe(
      'src/ui/Page.tsx line 1 imports src/ui/Chat.tsx as "@/ui/Chat"',
    );
  });

  it('with a pattern, the pattern must match the code, not a comment', async () => {
    const ok = await run(
      check({ id: 'k', type: 'key_link', from: 'src/ui/Page.tsx', to: '/api/chat', via: 'fetch in useEffect', pattern: 'fetch\\([\'"]/api/chat' }),
    );
    expect(ok).toMatchObject({ status: 'pass', evidence: 'src/ui/Page.tsx line 3 links to /api/chat (via fetch in useEffect): "fetch(\'/api/chat"' });
    const commented = await run(check({ id: 'k', type: 'key_link', from: 'src/ui/Chat.tsx', to: '/api/chat', pattern: 'fetch\\([\'"]/api/chat' }));
    expect(commented.status).toBe('fail');
    expect(commented.evidence).toContain('src/ui/Chat.tsx has no match for /fetch\\(');
    expect(commented.evidence).toContain('outside comments; the link to /api/chat is missing');
  });

  it('fails when the link is missing', async () => {
    const r = await run(check({ id: 'k', type: 'key_link', from: 'src/auth/crypto.ts', to: 'src/auth/login.ts' }));
    expect(r).toMatchObject({ status: 'fail', evidence: 'src/auth/crypto.ts neither imports nor mentions src/auth/login.ts; the link is missing' });
  });

  it('fails when to names a repository file that does not exist, or from is missing', async () => {
    const r = await run(check({ id: 'k', type: 'key_link', from: 'src/auth/login.ts', to: 'src/auth/session.ts', pattern: 'session' }));
    expect(r).toMatchObject({ status: 'fail', evidence: 'src/auth/session.ts does not exist, so src/auth/login.ts cannot link to it' });
    const from = await run(check({ id: 'k', type: 'key_link', from: 'src/gone.ts', to: 'src/auth/login.ts' }));
    expect(from.evidence).toBe('src/gone.ts does not exist');
  });
});

describe('human checks', () => {
  it('are not run: they wait for a person, and become a verification checkpoint', async () => {
    const human = check({ id: 'looks', type: 'human', kind: 'visual_quality', prompt: 'Does the login page match the mockup?' });
    expect(await run(human)).toMatchObject({ status: 'human', evidence: 'waits for a person (visual_quality): "Does the login page match the mockup?"' });
    expect(humanCheckpoint(human, '01-02')).toEqual({
      id: '01-02/looks',
      kind: 'verification',
      prompt: 'Visual quality: Does the login page match the mockup?',
      options: ['pass', 'fail'],
      source: 'looks',
    });
  });
});

describe('api_response against a server started through serve with {port}', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await ports.serve({ command: 'node server.mjs', url: 'http://127.0.0.1:{port}', ready_path: '/api/health', timeout_seconds: 20 });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('fills {port} with a free port, passed to the server as PORT', () => {
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('passes on the expected status, body and JSON subset', async () => {
    const ctx = { baseUrl: server.baseUrl };
    const get = await run(
      check({
        id: 'api',
        type: 'api_response',
        request: 'GET /api/health',
        expect: { status: 200, body_contains: '"ok"', json: { status: 'ok', tags: ['v2'] } },
      }),
      ctx,
    );
    expect(get.status).toBe('pass');
    expect(get.evidence).toBe(`GET ${server.baseUrl}/api/health → 200; body "{\\"status\\":\\"ok\\",\\"version\\":2,\\"tags\\":[\\"api\\",\\"v2\\"]}"`);
    const post = await run(
      check({
        id: 'login',
        type: 'api_response',
        request: 'POST /api/login',
        body: { user: 'ada' },
        expect: { json: { user: { name: 'ada', roles: ['admin'] } } },
      }),
      ctx,
    );
    expect(post.status).toBe('pass');
    const absolute = await run(check({ id: 'abs', type: 'api_response', request: `GET ${server.baseUrl}/api/health`, expect: { status: 200 } }));
    expect(absolute.status).toBe('pass');
  });

  it('fails on a wrong status, a JSON difference or a missing text, saying what came back', async () => {
    const ctx = { baseUrl: server.baseUrl };
    const status = await run(check({ id: 'login', type: 'api_response', request: 'POST /api/login', body: { user: 'bob' }, expect: { status: 200 } }), ctx);
    expect(status).toMatchObject({ status: 'fail', evidence: `POST ${server.baseUrl}/api/login → 401, expected 200; body "{\\"error\\":\\"unknown user\\"}"` });
    const json = await run(
      check({ id: 'login', type: 'api_response', request: 'POST /api/login', body: { user: 'ada' }, expect: { json: { user: { name: 'grace' } } } }),
      ctx,
    );
    expect(json.evidence).toContain('JSON differs at $.user.name: expected "grace", got "ada"');
    const missing = await run(check({ id: 'h', type: 'api_response', request: 'GET /nope', expect: {} }), ctx);
    expect(missing.evidence).toContain('→ 404, expected a 2xx status');
    const text = await run(check({ id: 'h', type: 'api_response', request: 'GET /api/health', expect: { body_contains: 'degraded' } }), ctx);
    expect(text.evidence).toContain('does not contain "degraded"');
  });

  it('fails a path without a server, telling how to give it one', async () => {
    const r = await run(check({ id: 'api', type: 'api_response', request: 'GET /api/health', expect: { status: 200 } }));
    expect(r.status).toBe('fail');
    expect(r.evidence).toContain('the plan has no serve: add serve');
  });
});

describe('local ports: files are confined to the checkout', () => {
  it('does not hang on a named pipe', async () => {
    const r = await run(check({ id: 'fifo', type: 'file_contains', path: 'pipe', contains: 'x' }));
    expect(r).toMatchObject({ status: 'fail', evidence: 'could not run the check: pipe is not a regular file' });
  });

  it('refuses ../, absolute paths and symbolic links that lead out', async () => {
    const outside = tempRepo({ 'secret.txt': 'password=hunter2\n' });
    const inside = tempRepo({ 'src/a.ts': 'export const a = 1;\n' });
    try {
      symlinkSync(join(outside.root, 'secret.txt'), join(inside.root, 'leak.txt'));
      symlinkSync(outside.root, join(inside.root, 'outdir'));
      symlinkSync(join(inside.root, 'src/a.ts'), join(inside.root, 'alias.ts'));
      const p = localVerifyPorts(inside.root);
      await expect(p.readFile('../secret.txt')).rejects.toThrow(PathEscapeError);
      await expect(p.readFile('src/../../secret.txt')).rejects.toThrow('it climbs out with ..');
      await expect(p.readFile(join(outside.root, 'secret.txt'))).rejects.toThrow('an absolute path');
      await expect(p.readFile('leak.txt')).rejects.toThrow('a symbolic link leads out');
      await expect(p.readFile('outdir/secret.txt')).rejects.toThrow('a symbolic link leads out');
      await expect(p.exists('leak.txt')).rejects.toThrow(PathEscapeError);
      expect(await p.readFile('alias.ts')).toBe('export const a = 1;\n');
      expect(await p.readFile('src/missing.ts')).toBeUndefined();
      const r = await runCheck(check({ id: 'leak', type: 'file_contains', path: 'leak.txt', contains: 'password' }), p);
      expect(r.status).toBe('fail');
      expect(r.evidence).toContain('leak.txt is outside the checkout (a symbolic link leads out)');
    } finally {
      inside.remove();
      outside.remove();
    }
  });
});

// ---- levels ----

const SPEC_MD = '---\nid: SPC-007\ntitle: Demo\n---\n# Demo\n';

function planText(id: string, mustPass: string, extra = ''): string {
  return `---\nplan_id: "${id}"\ntitle: Plan ${id}\nfiles_modified: ["src/p${id}.ts"]\n${extra}must_pass:\n${mustPass}\n---\n# Plan ${id}\n`;
}

function loadDemoSpec(): Spec {
  const roadmap = `---
phases:
  - id: "01"
    title: Foundation
    serve: { command: "node server.mjs", url: "http://127.0.0.1:{port}", ready_path: /api/health }
    must_pass:
      - { id: home, type: api_response, request: "GET /", expect: { status: 200, body_contains: Welcome } }
      - { id: readme, type: file_contains, path: README.md, contains: login service }
---
# Roadmap
`;
  const loaded = loadSpec(
    specFiles({
      'SPEC.md': SPEC_MD,
      'ROADMAP.md': roadmap,
      'planning/plans/01-foundation/01-01-PLAN.md': planText(
        '01-01',
        '  - { id: module, type: artifact, path: src/auth/login.ts, exports: [login] }\n  - { id: wired, type: key_link, from: src/auth/login.ts, to: src/auth/crypto.ts }',
      ),
      'planning/plans/01-foundation/01-02-PLAN.md': planText(
        '01-02',
        '  - { id: health, type: api_response, request: "GET /api/health", expect: { json: { status: ok } } }\n  - { id: looks, type: visual_quality, prompt: "Is the page tidy?" }',
        'serve: { command: "node server.mjs", url: "http://127.0.0.1:{port}", ready_path: /api/health }\n',
      ),
    }),
  );
  expect(loaded.problems).toEqual([]);
  return loaded.spec!;
}

/** Real ports, with each server's handle recorded so the test can see it was stopped. */
function recording(inner: VerifyPorts): { ports: VerifyPorts; servers: { baseUrl: string; stopped: boolean }[] } {
  const servers: { baseUrl: string; stopped: boolean }[] = [];
  return {
    servers,
    ports: {
      ...inner,
      async serve(s) {
        const handle = await inner.serve(s);
        const rec = { baseUrl: handle.baseUrl, stopped: false };
        servers.push(rec);
        return {
          baseUrl: handle.baseUrl,
          stop: async () => {
            rec.stopped = true;
            await handle.stop();
          },
        };
      },
    },
  };
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch {
    return true;
  }
}

/** Is the server whose pid the fixture wrote still running? A zombie (reaped by no one in a container) is not. */
function pidAlive(root: string): boolean {
  const pid = Number(readFileSync(join(root, 'server.pid'), 'utf8'));
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}

describe('verification levels', () => {
  it('plan level: runs every check, shares one server and stops it; a human check makes the level wait for a person', async () => {
    const spec = loadDemoSpec();
    const rec = recording(ports);
    const report = await verifyPlan(spec.planById.get('01-02')!, rec.ports, { spec: spec.id });
    expect(report).toMatchObject({ level: 'plan', id: '01-02', spec: 'SPC-007', status: 'human', problems: [] });
    expect(report.results.map((r) => [r.id, r.status])).toEqual([
      ['health', 'pass'],
      ['looks', 'human'],
    ]);
    expect(rec.servers).toHaveLength(1);
    expect(rec.servers[0]!.stopped).toBe(true);
    expect(await refused(`${rec.servers[0]!.baseUrl}/api/health`)).toBe(true);
    expect(pidAlive(repo.root)).toBe(false);
  });

  it("plan level: a person's answer settles a human check", async () => {
    const spec = loadDemoSpec();
    const yes = await verifyPlan(spec.planById.get('01-02')!, ports, { spec: spec.id, answers: { looks: { passed: true, by: 'ada' } } });
    expect(yes.status).toBe('pass');
    expect(yes.results[1]!.evidence).toBe('answered pass by ada');
    const no = await verifyPlan(spec.planById.get('01-02')!, ports, { spec: spec.id, answers: { looks: { passed: false, note: 'misaligned' } } });
    expect(no.status).toBe('fail');
  });

  it('plan level: the server is stopped even when checks fail, and a server that never answers fails its checks', async () => {
    const spec = loadDemoSpec();
    const plan = spec.planById.get('01-02')!;
    const failing: Plan = { ...plan, mustPass: [check({ id: 'health', type: 'api_response', request: 'GET /api/health', expect: { status: 500 } })] };
    const rec = recording(ports);
    const report = await verifyPlan(failing, rec.ports, { spec: spec.id });
    expect(report.status).toBe('fail');
    expect(rec.servers[0]!.stopped).toBe(true);
    expect(pidAlive(repo.root)).toBe(false);

    // A server that would sleep ten minutes: the plan fails after its 1 s, without waiting for it.
    const silent: Plan = { ...failing, serve: { command: 'sleep 600', url: 'http://127.0.0.1:{port}', timeout_seconds: 1 } };
    const none = await verifyPlan(silent, ports, { spec: spec.id });
    expect(none.status).toBe('fail');
    expect(none.results[0]!.evidence).toMatch(
      /^the server did not start \(serve: "sleep 600"\): "sleep 600" did not answer at http:\/\/127\.0\.0\.1:\d+\/ within 1 s/,
    );
  });

  it('plan level: nothing to check is a failure, never a vacuous pass', async () => {
    const spec = loadDemoSpec();
    const report = await verifyPlan({ ...spec.planById.get('01-01')!, mustPass: [] }, ports, { spec: spec.id });
    expect(report.status).toBe('fail');
    expect(report.problems).toEqual(['no checks to run: a plan cannot be verified by nothing; add must_pass checks']);
  });

  it("phase level: every plan's checks again on the merged checkout, then the phase's own, each plan with its server", async () => {
    const spec = loadDemoSpec();
    const rec = recording(ports);
    const seen: string[] = [];
    const report = await verifyPhase(spec, spec.phases[0]!, rec.ports, {
      answers: { '01-02/looks': { passed: true } },
      onResult: (r) => seen.push(`${r.plan ?? 'phase'}/${r.id}`),
    });
    expect(report).toMatchObject({ level: 'phase', id: '01', spec: 'SPC-007', status: 'pass', problems: [] });
    expect(report.results.map((r) => [r.plan, r.id, r.status])).toEqual([
      ['01-01', 'module', 'pass'],
      ['01-01', 'wired', 'pass'],
      ['01-02', 'health', 'pass'],
      ['01-02', 'looks', 'pass'],
      [undefined, 'home', 'pass'],
      [undefined, 'readme', 'pass'],
    ]);
    expect(seen).toEqual(['01-01/module', '01-01/wired', '01-02/health', '01-02/looks', 'phase/home', 'phase/readme']);
    // One server for plan 01-02's checks, one for the phase's own; both stopped.
    expect(rec.servers.map((s) => s.stopped)).toEqual([true, true]);
    expect(pidAlive(repo.root)).toBe(false);
  });

  it('phase level: a phase check that fails the merged result fails the phase though every plan passed', async () => {
    const spec = loadDemoSpec();
    const phase = { ...spec.phases[0]!, mustPass: [...spec.phases[0]!.mustPass, check({ id: 'changelog', type: 'file_exists', path: 'CHANGELOG.md' })] };
    const report = await verifyPhase(spec, phase, ports, { answers: { '01-02/looks': { passed: true } } });
    expect(report.status).toBe('fail');
    expect(report.results.filter((r) => r.status === 'fail').map((r) => [r.plan, r.id, r.evidence])).toEqual([
      [undefined, 'changelog', 'CHANGELOG.md does not exist'],
    ]);
    const unanswered = await verifyPhase(spec, spec.phases[0]!, ports);
    expect(unanswered.status).toBe('human');
  });

  it('renders VERIFICATION.md that the document parser reads back without problems', async () => {
    const spec = loadDemoSpec();
    const report = await verifyPhase(spec, { ...spec.phases[0]!, mustPass: [check({ id: 'changelog', type: 'file_exists', path: 'CHANGELOG.md' })] }, ports);
    const templatePath = join(ROOT, 'templates', 'VERIFICATION.md');
    const template = existsSync(templatePath) ? readFileSync(templatePath, 'utf8') : undefined;
    for (const text of [renderVerification(report, { title: 'Phase 01: Foundation', commit: '9b2e4f1', template }), renderVerification(report)]) {
      const parsed = parseDocument('verification', 'execution/phases/01-foundation/VERIFICATION.md', text);
      expect(parsed.problems).toEqual([]);
      expect(parsed.data).toMatchObject({ level: 'phase', spec: 'SPC-007', phase: '01', status: 'failed' });
      expect(parsed.data!.checks.map((c) => [c.plan, c.id, c.result])).toEqual([
        ['01-01', 'module', 'pass'],
        ['01-01', 'wired', 'pass'],
        ['01-02', 'health', 'pass'],
        ['01-02', 'looks', 'skipped-for-human'],
        [undefined, 'changelog', 'fail'],
      ]);
      expect(text).toContain('| plan | check | type | result | evidence |');
      expect(text).toContain('| phase | changelog | file_exists | ❌ fail | CHANGELOG.md does not exist |');
      expect(text).toContain('- changelog (fix): CHANGELOG.md does not exist');
    }
  });

  it('renders a plan-level VERIFICATION.md with plan and phase keys', async () => {
    const spec = loadDemoSpec();
    const report = await verifyPlan(spec.planById.get('01-01')!, ports, { spec: spec.id });
    const text = renderVerification(report);
    const parsed = parseDocument('verification', 'VERIFICATION.md', text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({ level: 'plan', plan: '01-01', phase: '01', status: 'verified' });
    expect(text).toContain('**Verified.** Plan 01-01: every check passed.');
    const plan = spec.planById.get('01-01')!;
    const one = renderVerification(await verifyPlan({ ...plan, mustPass: plan.mustPass.slice(0, 1) }, ports, { spec: spec.id }));
    expect(one).toContain('1 passed, 0 failed, 0 waiting for a person, of 1 check. Checked from');
  });
});

describe('a check never throws', () => {
  it('turns a port error into a failure with the message', async () => {
    const broken: VerifyPorts = {
      ...ports,
      readFile: () => Promise.reject(new Error('disk on fire')),
    };
    const r = await runCheck(check({ id: 'x', type: 'file_contains', path: 'a', contains: 'b' }), broken);
    expect(r).toMatchObject({ status: 'fail', evidence: 'could not run the check: disk on fire' });
  });

  it('abandons a port that hangs, at the check timeout', async () => {
    // The check's clock, driven by hand: its timer fires when the test says, not when a busy machine gets to it.
    const timers: { ms: number; fire: () => void }[] = [];
    const clock = { ...ports.clock, after: (ms: number, fire: () => void) => (timers.push({ ms, fire }), () => undefined) };
    const hanging: VerifyPorts = { ...ports, clock, exists: () => new Promise(() => undefined) };
    let settled = false;
    const result = runCheck(check({ id: 'x', type: 'file_exists', path: 'a', timeout_seconds: 1 }), hanging).finally(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(timers.map((t) => t.ms)).toEqual([1000]);
    timers[0]!.fire();
    const r = await result;
    expect(r.status).toBe('fail');
    expect(r.evidence).toBe('no result within 1 s (timeout_seconds), so the check was abandoned');
  });
});
