import { createHash } from 'node:crypto';
import { renderTemplate } from '../../core/documents/render-template.js';
import { planPhase } from '../../core/spec/model.js';
import type { SignalDraft } from '../documents/loop.js';

/**
 * A signal draft as the file it becomes in the store (docs/design.md, Knowledge):
 * `signals/<project>/<YYYY-MM-DD>/<timestamp>-<key>-<type>.signal.md`, rendered from
 * templates/signal.md so that what is written is exactly what the signal parser reads.
 */

/** What capture adds to a draft when it files it. */
export interface Filing {
  /** The repository or project the signal comes from: a folder of the store. */
  project: string;
  at: Date;
  /** The signal's identity (signalKey): the same happening captured twice has the same key. */
  key: string;
  /** Earlier signals of the same type and project sharing a tag, newest first (store paths). */
  related?: readonly string[];
  /** How often this has been seen, this one included. */
  occurrences?: number;
  /** Where it was captured (signalKey's origin), kept so that a re-run of the same job knows its own signals. */
  origin?: string;
}

/** Hex digits of the key that go into the file name: enough to tell a day's signals apart. */
const KEY_LENGTH = 8;

/**
 * A signal's identity, from where it was captured (`origin`: a local run, a workflow run, a
 * comment) and what it is about. A re-run of the same job, or a resumed local run that
 * captures the same facts again, gets the same key, and the store keeps the first.
 */
export function signalKey(origin: string, draft: SignalDraft): string {
  const facts = [
    origin,
    draft.type,
    draft.spec ?? '',
    draft.phase ?? '',
    draft.plan ?? '',
    String(draft.metadata?.attempt ?? ''),
    [...draft.tags].sort().join(','),
  ];
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex').slice(0, KEY_LENGTH);
}

/** `20260302T093000Z`: sortable, and free of the colons some file systems refuse. */
function compactTime(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
}

export function signalPath(project: string, at: Date, key: string, type: string): string {
  return `signals/${project}/${at.toISOString().slice(0, 10)}/${compactTime(at)}-${key}-${type}.signal.md`;
}

/** The key a signal's file name carries, or undefined for a name not written by capture. */
export function keyOfSignalPath(path: string): string | undefined {
  return /\/\d{8}T\d{6}Z-([0-9a-f]{8})-[a-z]+\.signal\.md$/.exec(path)?.[1];
}

/** The file of one draft, rendered from templates/signal.md (its text as given). */
export function renderSignal(template: string, draft: SignalDraft, filing: Filing): { path: string; text: string } {
  const metadata: Record<string, unknown> = { key: filing.key, ...(filing.origin === undefined ? {} : { origin: filing.origin }), ...(draft.metadata ?? {}) };
  if (filing.occurrences !== undefined && filing.occurrences > 1) metadata.occurrences = filing.occurrences;
  if (filing.related && filing.related.length > 0) metadata.related = [...filing.related];
  const phase = draft.phase ?? (draft.plan !== undefined ? planPhase(draft.plan) : undefined);
  const text = renderTemplate(
    template,
    {
      type: draft.type,
      severity: draft.severity,
      project: filing.project,
      spec: draft.spec,
      phase,
      plan: draft.plan,
      timestamp: filing.at.toISOString(),
      agent: draft.agent,
      tags: draft.tags,
      metadata,
    },
    { what_happened: draft.happened.trim(), context: draft.context.trim() || 'Nothing more was recorded.', cause: draft.cause.trim() || 'Not known.' },
  );
  return { path: signalPath(filing.project, filing.at, filing.key, draft.type), text };
}
