/**
 * The commits workers make. Each task of a plan ends in exactly one commit whose trailers
 * say which spec, plan and task it completes:
 *
 *     01-02: Write src/store/memory.js
 *
 *     - added src/store/memory.js
 *     - modified src/index.js
 *
 *     Plan: 01-02
 *     Task: 1/3
 *     Spec: SPC-001
 *
 * The subject is `<plan id>: <task title>` rather than a conventional `feat(…)`: the worker
 * cannot know whether a step is a feature, a fix or a test, and a wrong type is worse than none;
 * the plan id in front keeps the log readable and greppable. The trailers are the durable record
 * a resumed worker reads to skip finished tasks, so they are git trailers (the last paragraph,
 * `Key: value`) that `git interpret-trailers` and `%(trailers)` understand too.
 */

export interface Trailer {
  key: string;
  value: string;
}

export interface CommitMessage {
  subject: string;
  body?: string;
  trailers: Trailer[];
}

export interface ChangedFile {
  /** git's letter: A, M, D, T, … */
  status: string;
  path: string;
}

export const TRAILER_PLAN = 'Plan';
export const TRAILER_TASK = 'Task';
export const TRAILER_SPEC = 'Spec';

/** Files listed in a commit body; beyond this the body says how many more. */
const MAX_LISTED_FILES = 50;

export function formatCommitMessage(message: CommitMessage): string {
  // A subject is one line: a newline in a title would push text into the body.
  const parts = [message.subject.replace(/\s*\n\s*/g, ' ').trim()];
  if (message.body?.trim()) parts.push(message.body.trim());
  if (message.trailers.length > 0) parts.push(message.trailers.map((t) => `${t.key}: ${t.value}`).join('\n'));
  return `${parts.join('\n\n')}\n`;
}

/** The trailers that mark a commit as task `task` of `total` of a plan. */
export function taskTrailers(spec: string, plan: string, task: number, total: number): Trailer[] {
  return [
    { key: TRAILER_PLAN, value: plan },
    { key: TRAILER_TASK, value: `${task}/${total}` },
    { key: TRAILER_SPEC, value: spec },
  ];
}

/** Trailers of a message: its last paragraph, when every line of it is `Key: value`. */
export function parseTrailers(message: string): Trailer[] {
  const paragraphs = message.replace(/\r\n/g, '\n').trim().split(/\n[ \t]*\n/);
  if (paragraphs.length < 2) return [];
  const last = paragraphs[paragraphs.length - 1]!.split('\n');
  const trailers: Trailer[] = [];
  for (const line of last) {
    const match = /^([A-Za-z0-9][A-Za-z0-9-]*):[ \t]*(.*?)\s*$/.exec(line);
    if (!match) return [];
    trailers.push({ key: match[1]!, value: match[2]! });
  }
  return trailers;
}

export function trailerValue(trailers: readonly Trailer[], key: string): string | undefined {
  const lower = key.toLowerCase();
  return trailers.findLast((t) => t.key.toLowerCase() === lower)?.value;
}

/** "2/3" → { task: 2, total: 3 } */
export function parseTaskTrailer(value: string | undefined): { task: number; total: number } | undefined {
  const match = value === undefined ? null : /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!match) return undefined;
  const task = Number(match[1]);
  const total = Number(match[2]);
  return task >= 1 && task <= total ? { task, total } : undefined;
}

const STATUS_WORDS: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', T: 'type changed', R: 'renamed', C: 'copied' };

/** The body of a task commit: the files it changes, or that it changes none. */
export function fileListBody(files: ChangedFile[]): string {
  if (files.length === 0) return 'No files changed.';
  const listed = files.slice(0, MAX_LISTED_FILES).map((f) => `- ${STATUS_WORDS[f.status[0]!] ?? f.status} ${f.path}`);
  if (files.length > MAX_LISTED_FILES) listed.push(`- … and ${files.length - MAX_LISTED_FILES} more`);
  return listed.join('\n');
}

/** The task of `plan` in `spec` that a commit completes, read from its trailers. */
export function taskOf(trailers: Trailer[], spec: string, plan: string): { task: number; total: number } | undefined {
  if (trailerValue(trailers, TRAILER_PLAN) !== plan || trailerValue(trailers, TRAILER_SPEC) !== spec) return undefined;
  return parseTaskTrailer(trailerValue(trailers, TRAILER_TASK));
}
