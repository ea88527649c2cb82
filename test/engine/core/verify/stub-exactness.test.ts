import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Check } from '../../../../app/engine/core/spec/model.js';
import { runCheck } from '../../../../app/engine/core/verify/checks.js';
import { findPattern, looksLikeRegex } from '../../../../app/engine/core/verify/find-pattern.js';
import { isImageReference, looksLikeRepoPath } from '../../../../app/engine/core/verify/module-paths.js';
import { stubMarkers } from '../../../../app/engine/core/verify/stub-markers.js';
import { localVerifyPorts, type LocalVerifyPorts } from '../../../../app/machine/verify-ports.js';
import { check, tempRepo } from '../../../fixtures/verify/repo.js';

/**
 * Code as finished GSD projects have it: each of these was once judged a stub or a missing
 * link although it was the work, done.
 */
const EXTENSION = `import * as vscode from 'vscode';
import { registerCommands } from './commands';

export function activate(context: vscode.ExtensionContext) {
  const disposables = registerCommands(context);
  context.subscriptions.push(...disposables);
  vscode.window.setStatusBarMessage('Ledger ready', 2000);
}

export function deactivate() {}
`;

const STORAGE_PY = `"""Storage backends.

Encryption at rest is not implemented in this phase; phase 6 adds it behind the same interface.
"""
from abc import ABC, abstractmethod
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...


class Storage(ABC):
    @abstractmethod
    def read(self, key: str) -> bytes:
        ...

    @abstractmethod
    def write(self, key: str, data: bytes) -> None:
        """Store data under key."""
        raise NotImplementedError


class MemoryStorage(Storage):
    def __init__(self) -> None:
        self._items: dict[str, bytes] = {}

    def read(self, key: str) -> bytes:
        return self._items[key]

    def write(self, key: str, data: bytes) -> None:
        self._items[key] = data
`;

const STUB_PY = `class Exporter:
    def export(self, rows):
        # not implemented yet
        pass


def render(rows):
    raise NotImplementedError("phase 4")
`;

const SERVER_TS = `import Fastify from 'fastify';
import { invoiceRoutes } from './invoices.js';

export const app = Fastify();
app.register(
  invoiceRoutes,
  { prefix: '/api' },
);
`;

const COMPOSE = `services:
  db:
    image: postgres:16-alpine
  api:
    image: ghcr.io/acme/ledger-api:1.4
    depends_on: [db]
`;

let repo: ReturnType<typeof tempRepo>;
let ports: LocalVerifyPorts;
beforeAll(() => {
  repo = tempRepo({
    'src/extension.ts': EXTENSION,
    'src/commands.ts': 'export function registerCommands(c: unknown) {\n  return [c];\n}\n',
    'app/storage.py': STORAGE_PY,
    'app/stub.py': STUB_PY,
    'src/api/server.ts': SERVER_TS,
    'src/api/invoices.ts': 'export async function invoiceRoutes() {\n  return;\n}\n',
    'docker-compose.yml': COMPOSE,
  });
  ports = localVerifyPorts(repo.root);
});
afterAll(async () => {
  await ports.close();
  repo.remove();
});

const run = (c: Check) => runCheck(c, ports, {});

describe('artifact: a stub is a body that does nothing where the plan requires behaviour', () => {
  it('passes a VS Code extension whose deactivate() is empty by convention', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/extension.ts', exports: ['activate', 'deactivate'] }));
    expect(r).toMatchObject({ status: 'pass', evidence: 'src/extension.ts: 8 substantive lines (min 3); exports activate, deactivate; no stub markers' });
  });

  it('passes Python abstract methods and Protocol members whose bodies are ..., and a docstring about a later phase', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'app/storage.py', exports: ['Storage', 'MemoryStorage', 'Clock'] }));
    expect(r).toMatchObject({
      status: 'pass',
      evidence: 'app/storage.py: 22 substantive lines (min 3); exports Storage, MemoryStorage, Clock; no stub markers',
    });
  });

  it('still fails a method that only passes under a comment saying so, and a function that raises NotImplementedError, each with its line', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'app/stub.py', exports: ['Exporter', 'render'] }));
    expect(r).toMatchObject({
      status: 'fail',
      evidence:
        'app/stub.py: looks like a stub: line 2: export only does pass; line 3 says not implemented: # not implemented yet; line 8 says NotImplementedError: raise NotImplementedError("phase 4")',
    });
  });

  it('judges an empty body only for the names the plan requires', () => {
    const text = 'export function helper() {}\nexport function required() {\n  return null;\n}\n';
    expect(stubMarkers(text, 'js', { required: ['required'] })).toEqual(['line 2: required only does return null;']);
    expect(stubMarkers(text, 'js', { required: ['helper'] })).toEqual(['line 1: helper has an empty body']);
    expect(stubMarkers('def area(r):\n    ...\n', 'py', { declarations: true })).toEqual([]);
  });

  it('checks a contains that is a regular expression as one, and says so in the evidence', async () => {
    const r = await run(check({ id: 'a', type: 'artifact', path: 'src/api/server.ts', contains: 'export (const|function) app' }));
    expect(r).toMatchObject({
      status: 'pass',
      evidence:
        'src/api/server.ts: 7 substantive lines (min 3); matches /export (const|function) app/ (contains, read as a regular expression) at line 4: "export const app"; no stub markers',
    });
    const literal = await run(check({ id: 'a', type: 'artifact', path: 'src/api/server.ts', contains: "{ prefix: '/api' }" }));
    expect(literal.evidence).toContain(`contains "{ prefix: '/api' }" at line 7`);
    const missing = await run(check({ id: 'a', type: 'artifact', path: 'src/api/server.ts', contains: 'register\\(userRoutes' }));
    expect(missing).toMatchObject({
      status: 'fail',
      evidence: 'src/api/server.ts: does not contain "register\\\\(userRoutes", as text or as a regular expression',
    });
  });
});

describe('key_link: exact about what is a path and where a pattern matched', () => {
  it('matches a pattern across the lines a formatter broke a call over, naming the lines', async () => {
    const r = await run(check({ id: 'k', type: 'key_link', from: 'src/api/server.ts', to: 'src/api/invoices.ts', pattern: 'register\\(.*invoiceRoutes' }));
    expect(r).toMatchObject({ status: 'pass', evidence: 'src/api/server.ts lines 5-6 links to src/api/invoices.ts: "register(\\n  invoiceRoutes"' });
  });

  it('does not join a match across a whole file', () => {
    const text = `a();\n${'x();\n'.repeat(20)}b();\n`;
    expect(findPattern(text, 'a\\(.*b\\(')).toBeUndefined();
    expect(findPattern('a(1,\n  b(2));\n', 'a\\(.*b\\(')).toEqual({ text: 'a(1,\n  b(', line: 1, endLine: 2 });
  });

  it('reads a container image as what a compose file runs, not as a repository file', async () => {
    const r = await run(check({ id: 'k', type: 'key_link', from: 'docker-compose.yml', to: 'ghcr.io/acme/ledger-api:1.4' }));
    expect(r).toMatchObject({ status: 'pass', evidence: 'docker-compose.yml line 5 mentions "ghcr.io/acme/ledger-api:1.4"' });
    for (const image of [
      'postgres:16-alpine',
      'ghcr.io/acme/ledger-api:1.4',
      'docker.io/library/nginx',
      'redis/redis-stack:latest',
      'nginx@sha256:0123456789abcdef0123',
    ]) {
      expect([image, isImageReference(image), looksLikeRepoPath(image)]).toEqual([image, true, false]);
    }
    for (const path of ['src/api/server.ts', 'docker/Dockerfile', '.github/workflows/ci.yml', 'infra/k8s/deploy.yaml']) {
      expect([path, isImageReference(path), looksLikeRepoPath(path)]).toEqual([path, false, true]);
    }
  });
});

describe('looksLikeRegex', () => {
  it('tells the patterns GSD authors write from literal text', () => {
    expect(['drizzle\\(.*schema', 'export (const|function) db', '^import', 'use[A-Z]\\w+', 'a|b'].map(looksLikeRegex)).toEqual([true, true, true, true, false]);
    expect(['CREATE TABLE `invoices`', 'application/pdf', 'fetch(', 'x.y'].map(looksLikeRegex)).toEqual([false, false, false, false]);
  });
});
