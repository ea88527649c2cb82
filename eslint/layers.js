// @ts-check
/**
 * harness's layers, enforced: which area of the code may import which. An area is a folder;
 * a file belongs to the longest area its path starts with. Imports inside an area are free;
 * across areas only the edges listed here exist, so that dependencies run one way (the pure
 * engine at the bottom, the adapters around it, the shells of the actions at the top). The
 * picture and the reasons are in docs/architecture.md.
 */
import { isAbsolute, posix, relative, sep } from 'node:path';

const CORE = 'app/engine/core';
// The knowledge loop, by stage, each on the ones before it: documents (the formats and the store's
// records), signals (capture), lessons (reflection), skills, genes, surfacing, spikes, and the
// holdout (the comparison of plans with and without knowledge, and the retirement it proposes).
const DOCUMENTS = 'app/engine/knowledge/documents';
const SIGNALS = 'app/engine/knowledge/signals';
const LESSONS = 'app/engine/knowledge/lessons';
const SKILLS = 'app/engine/knowledge/skills';
const GENES = 'app/engine/knowledge/genes';
const SURFACING = 'app/engine/knowledge/surfacing';
const SPIKES = 'app/engine/knowledge/spikes';
const HOLDOUT = 'app/engine/knowledge/holdout';
const KNOWLEDGE = [DOCUMENTS, SIGNALS, LESSONS, SKILLS, GENES, SURFACING, SPIKES, HOLDOUT];
const LIFECYCLE = 'app/engine/lifecycle';
const FORGE = 'app/engine/forge';
const IMPORTERS = 'app/engine/importers';
const PLANNING = 'app/engine/planning';
const ENGINE = [CORE, ...KNOWLEDGE, LIFECYCLE, FORGE, IMPORTERS, PLANNING];

/** @type {Record<string, { may: string[]; why: string }>} */
export const LAYERS = {
  [CORE]: { may: [], why: 'the core (spec, graph, schedule, verify, protocol, documents, config, plan states) depends on nothing above it' },
  [DOCUMENTS]: {
    may: [CORE],
    why: "the knowledge documents (every kind's format, parsing, the store's index and trajectory lines) sit on the core documents and nothing else",
  },
  [SIGNALS]: { may: [CORE, DOCUMENTS], why: "capture writes signals in the documents' formats; it knows nothing of what is learnt from them" },
  [LESSONS]: { may: [CORE, DOCUMENTS, SIGNALS], why: 'reflection reads signals (documents) and drafts lessons from them' },
  [SKILLS]: { may: [CORE, DOCUMENTS, SIGNALS, LESSONS], why: "skills are extracted from signals (documents), judged with lessons' records and the reflector" },
  [GENES]: {
    may: [CORE, DOCUMENTS, SIGNALS],
    why: 'genes are solidified from signals and scored from the trajectory (documents); they know no lesson or skill code',
  },
  [SURFACING]: {
    may: [CORE, DOCUMENTS, GENES],
    why: "surfacing indexes the accepted documents (their files and signatures included) and balances genes by their settings (genes); a plan's failure signatures come in as text",
  },
  [SPIKES]: { may: [CORE, DOCUMENTS], why: "a spike's checks and files read its document and nothing else of the loop" },
  [HOLDOUT]: {
    may: [CORE, DOCUMENTS, SIGNALS, SKILLS, GENES],
    why: 'the holdout compares the plans its signals record, and retires a skill or a gene as their own stages do; it knows no surfacing, which it only ever short-circuits',
  },
  [IMPORTERS]: { may: [CORE], why: "importers translate other tools' files into the core model, before the spec loader" },
  [LIFECYCLE]: {
    may: [CORE, DOCUMENTS, SIGNALS, SPIKES],
    why: "the plan lifecycle runs on the core, feeds knowledge through the documents and signals, and runs a spike's stages; it knows no forge and no runtime",
  },
  [PLANNING]: { may: [CORE], why: 'planning (the planning commands, their stages, checks and prompts) judges documents with the core spec model alone' },
  [FORGE]: {
    may: [CORE, ...KNOWLEDGE, IMPORTERS, PLANNING],
    why: 'the forge model (names, markers, issue views, rounds, commands, knowledge-PR drafts of every stage) is what the App and the worker share; it knows no lifecycle',
  },
  'app/machine': { may: ENGINE, why: 'the machine-side ports (files, processes, browser, server) serve the engine and know none of their callers' },
  'app/agents': { may: [...ENGINE, 'app/machine'], why: 'agents run on the machine ports; they know no runner, worker or App' },
  'app/runner': { may: [...ENGINE, 'app/machine', 'app/agents'], why: 'the local runner knows no GitHub' },
  'app/gateway': { may: ENGINE, why: 'the one gateway to GitHub knows the forge model and nothing of its callers' },
  'app/worker-action': { may: [...ENGINE, 'app/machine', 'app/agents', 'app/gateway'], why: 'the worker never imports the local runner or the App' },
  'app/github': { may: [...ENGINE, 'app/machine', 'app/gateway'], why: 'the App reaches GitHub through the gateway and runs no plan itself' },
  'app/mcp': {
    may: [...ENGINE, 'app/machine', 'app/agents', 'app/runner', 'app/gateway'],
    why: 'harness mcp serves the local tools and reaches GitHub through the gateway, as a person would; it knows no App and no CLI (the CLI hands its commands in)',
  },
  'app/cli': {
    may: [...ENGINE, 'app/machine', 'app/agents', 'app/runner', 'app/mcp'],
    why: 'the CLI is the local shell: no GitHub of its own (harness mcp reaches it through app/mcp)',
  },
  'actions/worker/src': {
    may: [...ENGINE, 'app/machine', 'app/agents', 'app/gateway', 'app/worker-action'],
    why: 'the worker action is the shell of app/worker-action',
  },
  'actions/app/src': { may: [...ENGINE, 'app/machine', 'app/gateway', 'app/github'], why: 'the app action is the shell of app/github' },
};

/** What the engine may import from outside the repository: computation, never I/O (lru-cache: the one bounded cache, memory only). */
export const ENGINE_PACKAGES = ['node:crypto', 'lru-cache', 'picomatch', 'yaml', 'zod'];

const AREAS = Object.keys(LAYERS).sort((a, b) => b.length - a.length);

/** @param {string} path repository-relative, forward slashes */
export function areaOf(path) {
  return AREAS.find((area) => path === area || path.startsWith(`${area}/`));
}

/** @param {string} area */
function isEngine(area) {
  return ENGINE.includes(area);
}

/**
 * Why `from` may not import `to` (both repository-relative), or undefined when it may.
 * @param {string} from
 * @param {string} specifier
 * @returns {string | undefined}
 */
export function forbidden(from, specifier) {
  const area = areaOf(from);
  if (area === undefined) return undefined;
  if (!specifier.startsWith('.')) {
    if (!isEngine(area)) return undefined;
    const bare = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    if (ENGINE_PACKAGES.includes(bare ?? '')) return undefined;
    return `${from} imports "${specifier}": the engine does no I/O and talks to no GitHub or Actions; take a port (or add a pure package to ENGINE_PACKAGES in eslint/layers.js, with the reason)`;
  }
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  const to = areaOf(target);
  if (to === undefined || to === area || LAYERS[area]?.may.includes(to)) return undefined;
  return `${from} imports ${target}: ${area} may not depend on ${to} (${LAYERS[area]?.why}); move the shared piece down a layer, or take it as a port`;
}

/** @type {import('eslint').Rule.RuleModule} */
const importsRule = {
  meta: { type: 'problem', docs: { description: 'imports follow the layers of eslint/layers.js' }, schema: [] },
  create(context) {
    const file = relative(context.cwd, context.filename).split(sep).join('/');
    if (isAbsolute(file) || file.startsWith('..')) return {};
    /** @param {any} node @param {unknown} source */
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      const why = forbidden(file, source);
      if (why) context.report({ node, message: why });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export const layersPlugin = { rules: { imports: importsRule } };
