import { DATE_HINT, TIMESTAMP_HINT } from '../../core/documents/fields.js';

const AGENT = 'an agent name such as claude, codex or command';
const WHOLE = 'a whole number, 0 or more';
const FRACTION = 'a number from 0 to 1';

export const SIGNAL_HINTS: Readonly<Record<string, string>> = {
  timestamp: TIMESTAMP_HINT,
  agent: AGENT,
};

export const SPIKE_HINTS: Readonly<Record<string, string>> = {
  spike: 'the spike folder name: lowercase a-z, 0-9 and single "-", such as state-in-files',
  question: 'the question the spike answers, in one line',
  created: TIMESTAMP_HINT,
  started: TIMESTAMP_HINT,
  finished: TIMESTAMP_HINT,
  decided: TIMESTAMP_HINT,
  time_box_minutes: 'whole minutes from 1 to 1440',
  criteria: 'a list such as { id: resume, measure: "time to resume a run", target: "under 1 s" }',
  'criteria[].id': 'an id of letters, digits, ".", "_" or "-"',
  'criteria[].measure': 'what is measured',
  'criteria[].target': 'the value that counts as success',
  decision: 'the decision in one line',
  supersedes: 'the name of the spike whose decision this one replaces',
};

export const LESSON_HINTS: Readonly<Record<string, string>> = {
  evidence_count: 'a whole number, 1 or more: the signals and spikes behind the lesson',
  last_updated: DATE_HINT,
  projects: 'a list of project names',
};

export const SKILL_HINTS: Readonly<Record<string, string>> = {
  name: '1 to 64 characters of lowercase a-z and 0-9, with single "-" between words (such as fix-sqlite-busy)',
  description: '1 to 1024 characters saying what the skill does and when to use it',
  license: 'a license name such as MIT, or the name of a bundled license file',
  compatibility: 'at most 500 characters on what the skill needs (product, packages, network access)',
  'allowed-tools': 'one string of space-separated tools, such as "Bash(npm:*) Read"',
  metadata: 'a mapping of keys to text values',
  'metadata.*': 'text in quotes: Agent Skills metadata values are strings',
};

export const GENE_HINTS: Readonly<Record<string, string>> = {
  id: 'a gene id gene-YYYYMMDD-<8 hex digits>, such as gene-20260302-a1b2c3d4',
  name: 'a short line of text',
  description: '1 to 1024 characters',
  version: 'a whole number, 1 or more',
  success_rate: FRACTION,
  usage_count: WHOLE,
  consecutive_successes: WHOLE,
  consecutive_failures: WHOLE,
  created: TIMESTAMP_HINT,
  updated: TIMESTAMP_HINT,
  last_used: TIMESTAMP_HINT,
  scenarios: 'a list of scenario names such as [api-integration]',
  env: 'a mapping of text values such as { node: "20.x" }',
  publishable: 'true or false',
  source: 'where the gene came from, such as session or signal',
  mutations: 'a list such as { id: mut-001, from: "...", to: "...", reason: "...", timestamp: 2026-03-02T09:41:00Z }',
  'mutations[].id': 'a mutation id such as mut-001',
  'mutations[].timestamp': TIMESTAMP_HINT,
};

export const CAPSULE_HINTS: Readonly<Record<string, string>> = {
  id: 'a capsule id cap-YYYYMMDD-<8 hex digits>, such as cap-20260302-e5f6a7b8',
  name: 'a short line of text',
  description: '1 to 1024 characters',
  genes: 'a list of gene ids such as [gene-20260302-a1b2c3d4]',
  steps: 'a list such as { action: "Install dependencies", command: "npm ci", outcome: success }',
  'steps[].action': 'what the step does',
  'steps[].command': 'a shell command',
  'steps[].duration_seconds': 'a number of seconds, 0 or more',
  validation: 'a mapping of confidence, impact_scope, consecutive_successes and test_pass_rate',
  confidence: FRACTION,
  test_pass_rate: FRACTION,
  impact_scope: WHOLE,
  consecutive_successes: WHOLE,
  publishable: 'true or false',
  audit_log: 'a list such as { timestamp: 2026-03-02T09:41:00Z, event: created }',
  'audit_log[].timestamp': TIMESTAMP_HINT,
};
