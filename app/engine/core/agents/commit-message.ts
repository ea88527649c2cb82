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
  const parts = [commitLine(message.subject)];
  const body = message.body === undefined ? '' : commitBody(message.body).trim();
  if (body) parts.push(body);
  if (message.trailers.length > 0) parts.push(formatTrailers(message.trailers));
  return `${parts.join('\n\n')}\n`;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * One line of a commit message from text an author wrote (a plan title goes into every
 * merge's subject): line breaks and control characters become a space, so that a title
 * cannot start a paragraph of trailers of its own ("Plan: 09-99") and a NUL cannot make
 * every `git commit` refuse its argument.
 */
export function commitLine(text: string): string {
  return text.replace(CONTROL, ' ').replace(/ {2,}/g, ' ').trim();
}

/** A body keeps its lines; NUL and the other controls but tab and newline go. */
export function commitBody(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, '');
}

/** The trailer paragraph: each key and value a single sanitised line, so each trailer is one line. */
export function formatTrailers(trailers: readonly Trailer[]): string {
  return trailers.map((t) => `${commitLine(t.key).replace(/[^A-Za-z0-9-]/g, '-')}: ${commitLine(t.value)}`).join('\n');
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
  const paragraphs = message
    .replace(/\r\n/g, '\n')
    .trim()
    .split(/\n[ \t]*\n/);
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
