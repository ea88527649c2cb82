import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { areaOf, forbidden, LAYERS } from '../../eslint/layers.js';
import { ROOT } from '../helpers/paths.js';

/** Lint `code` as if it were the file at `path` (repository-relative), with the project's own config. */
async function lintAs(path: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the layers, as lint enforces them', () => {
  it('refuses a probe in the engine core that reaches for the file system, a process, GitHub, an adapter or a layer above', async () => {
    const probe = [
      "import { readFile } from 'node:fs/promises';",
      "import { spawn } from 'node:child_process';",
      "import { Octokit } from '@octokit/rest';",
      "import * as core from '@actions/core';",
      "import { runSpec } from '../../../runner/runner.js';",
      "import { loadTemplate } from '../../../machine/templates.js';",
      "import { gsdTitle } from '../../importers/gsd/plan.js';",
      "import { parseKnowledge } from '../../knowledge/documents/parse.js';",
      "import { planBranch } from '../../forge/names.js';",
      'export const probe = [readFile, spawn, Octokit, core, runSpec, loadTemplate, gsdTitle, parseKnowledge, planBranch];',
    ].join('\n');
    const messages = await lintAs('app/engine/core/spec/probe.ts', probe);
    expect(messages.filter((m) => m.startsWith('harness/imports'))).toHaveLength(9);
    expect(messages).toContainEqual(expect.stringContaining('imports "node:fs/promises": the engine does no I/O'));
    expect(messages).toContainEqual(expect.stringContaining('app/engine/core may not depend on app/runner'));
    expect(messages).toContainEqual(expect.stringContaining('app/engine/core may not depend on app/engine/importers'));
  });

  it('refuses the environment, the clock and timers in the engine: they come in as ports', async () => {
    const probe = [
      'export const home = process.env.HOME;',
      'export const at = new Date();',
      'export const ms = Date.now();',
      'export const t = setTimeout(() => undefined, 1);',
      'export const day = new Date(86_400_000);',
    ].join('\n');
    const messages = await lintAs('app/engine/lifecycle/probe.ts', probe);
    expect(messages).toEqual([
      expect.stringMatching(/^no-restricted-globals: .*process/),
      expect.stringMatching(/^no-restricted-syntax: The engine reads no clock/),
      expect.stringMatching(/^no-restricted-properties: .*Date.now/),
      expect.stringMatching(/^no-restricted-globals: .*setTimeout/),
    ]);
  });

  it('keeps the worker away from the local runner and the App, and the App away from the runner', async () => {
    const worker = await lintAs(
      'app/worker-action/probe.ts',
      "import { runSpec } from '../runner/runner.js';\nimport app from '../github/app.js';\nexport const p = [runSpec, app];\n",
    );
    expect(worker).toEqual([
      expect.stringContaining('app/worker-action may not depend on app/runner (the worker never imports the local runner or the App)'),
      expect.stringContaining('app/worker-action may not depend on app/github'),
    ]);
    const app = await lintAs('app/github/probe.ts', "import { runSpec } from '../runner/runner.js';\nexport const p = runSpec;\n");
    expect(app).toEqual([expect.stringContaining('app/github may not depend on app/runner')]);
  });

  it('lets each area use what is below it', async () => {
    expect(
      await lintAs(
        'app/engine/lifecycle/probe.ts',
        "import { parseKnowledge } from '../knowledge/documents/parse.js';\nimport { loadSpec } from '../core/spec/load.js';\nexport const p = [parseKnowledge, loadSpec];\n",
      ),
    ).toEqual([]);
    expect(
      await lintAs(
        'app/runner/probe.ts',
        "import { readFile } from 'node:fs/promises';\nimport { loadSpec } from '../engine/core/spec/load.js';\nexport const p = [readFile, loadSpec];\n",
      ),
    ).toEqual([]);
  });

  it('orders the knowledge loop by stage, each stage on the ones before it and none after', () => {
    const stages = ['documents', 'signals', 'lessons', 'skills', 'genes', 'surfacing', 'spikes'].map((s) => `app/engine/knowledge/${s}`);
    for (const [i, stage] of stages.entries()) {
      expect(LAYERS[stage], stage).toBeDefined();
      expect(
        LAYERS[stage]?.may.filter((area) => stages.includes(area) && stages.indexOf(area) >= i),
        stage,
      ).toEqual([]);
    }
    expect(forbidden('app/engine/knowledge/documents/probe.ts', '../lessons/reflect.js')).toContain(
      'app/engine/knowledge/documents may not depend on app/engine/knowledge/lessons',
    );
    expect(forbidden('app/engine/knowledge/lessons/probe.ts', '../signals/signal-record.js')).toBeUndefined();
  });

  it('puts every source file in an area', () => {
    const unplaced: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = posix.join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && areaOf(path) === undefined) unplaced.push(path);
      }
    };
    walk('app');
    expect(unplaced).toEqual([]);
  });
});

describe('no folder of app/ depends on itself through others', () => {
  /** The folder a file's imports are counted for: engine/core/<module>, engine/<area>, or the adapter. */
  function unit(path: string): string {
    const parts = path.split('/');
    if (parts[1] !== 'engine') return parts.slice(0, 2).join('/');
    return parts[2] === 'core' ? parts.slice(0, 4).join('/') : parts.slice(0, 3).join('/');
  }

  it('finds no cycle between folders (core modules, engine areas, adapters)', () => {
    const edges = new Map<string, Set<string>>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = posix.join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts')) {
          for (const m of readFileSync(join(ROOT, path), 'utf8').matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)) {
            const target = posix.normalize(posix.join(posix.dirname(path), m[1]!));
            const [a, b] = [unit(path), unit(target)];
            if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
          }
        }
      }
    };
    walk('app');
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (u: string) => {
      state.set(u, 'open');
      stack.push(u);
      for (const v of edges.get(u) ?? []) {
        if (state.get(v) === 'open') cycles.push([...stack.slice(stack.indexOf(v)), v].join(' → '));
        else if (!state.has(v)) visit(v);
      }
      stack.pop();
      state.set(u, 'done');
    };
    for (const u of edges.keys()) if (!state.has(u)) visit(u);
    expect(cycles).toEqual([]);
  });

  it('finds no cycle between files either, imports of types included (two files that need each other are one idea split in two)', () => {
    const edges = new Map<string, Set<string>>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = posix.join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts')) {
          for (const m of readFileSync(join(ROOT, path), 'utf8').matchAll(/^(?:import|export)\s+([^'"]*?)from '(\.[^']+)'/gm)) {
            const target = posix.normalize(posix.join(posix.dirname(path), m[2]!)).replace(/\.js$/, '.ts');
            edges.set(path, (edges.get(path) ?? new Set()).add(target));
          }
        }
      }
    };
    walk('app');
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (u: string) => {
      state.set(u, 'open');
      stack.push(u);
      for (const v of edges.get(u) ?? []) {
        if (state.get(v) === 'open') cycles.push([...stack.slice(stack.indexOf(v)), v].join(' → '));
        else if (!state.has(v)) visit(v);
      }
      stack.pop();
      state.set(u, 'done');
    };
    for (const u of edges.keys()) if (!state.has(u)) visit(u);
    expect(cycles).toEqual([]);
  });

  it('names every area the rule knows, and no edge to an unknown one', () => {
    for (const [area, layer] of Object.entries(LAYERS)) for (const to of layer.may) expect(Object.keys(LAYERS), `${area} → ${to}`).toContain(to);
    expect(forbidden('app/engine/core/spec/x.ts', './y.js')).toBeUndefined();
  });
});
