/**
 * What the agent CLIs' stream parsers (claude-, codex-, gemini-, copilot-stream.ts) share: a line
 * of JSON read tolerantly, typed reads of its fields, and the words of a progress line. Each
 * parser holds only its CLI's shapes.
 */

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The JSON object of one line of output; undefined for anything else. A line that is not JSON
 * (a warning the CLI prints, a partial line) yields nothing rather than an error: the CLIs add
 * fields and event types between versions.
 */
export function jsonLine(line: string): Json | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `target` with those of `fields` that are defined: an event carries no key for a figure the CLI did not give. */
export function withDefined<T extends object>(target: T, fields: Record<string, unknown>): T {
  for (const [key, v] of Object.entries(fields)) if (v !== undefined) Object.assign(target, { [key]: v });
  return target;
}

/** A path inside the worktree as the worktree's own (relative); any other as it is. */
export function relative(path: string, root: string): string {
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

export function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A CLI's stream as a table: for each `type` a line may have, the events it makes. */
export type LineReaders<E> = Record<string, (value: Json) => E[]>;

/** The events of one line of output, by its `type`; none for a line that is not JSON or of a type not read. */
export function readLine<E>(line: string, readers: LineReaders<E>): E[] {
  const value = jsonLine(line);
  const type = value?.type;
  return value && typeof type === 'string' && Object.hasOwn(readers, type) ? readers[type]!(value) : [];
}

/** A session's start: its id and, where the CLI said it, the model. */
export function initEvent(sessionId: string, model: string | undefined): { type: 'init'; sessionId: string; model?: string } {
  return model ? { type: 'init', sessionId, model } : { type: 'init', sessionId };
}

/** A tool call as a stream reports it: as it is made (`start`, with the tool's name) and as its result comes back (`end`). */
export interface ToolCall {
  id: string;
  name?: string;
  phase: 'start' | 'end';
  /** The call failed. */
  error?: boolean;
}

type ToolEvent =
  { type: 'tool_use'; id: string; name: string; server?: string } | { type: 'tool_result'; toolUseId: string; isError: boolean } | { type: string };

/**
 * The tool call of an event of a stream that reports `tool_use` and `tool_result` (Claude Code,
 * Copilot CLI, Gemini CLI); none for other events, for a call without an id, or for a call of
 * harness's own reporting tools (`own`), which report for themselves.
 */
export function toolCallOf(event: ToolEvent, own: (name: string, server: string | undefined) => boolean): ToolCall | undefined {
  if (event.type === 'tool_use' && 'name' in event)
    return event.id === '' || own(event.name, event.server) ? undefined : { id: event.id, name: event.name, phase: 'start' };
  if (event.type === 'tool_result' && 'toolUseId' in event)
    return event.toolUseId === '' ? undefined : { id: event.toolUseId, phase: 'end', error: event.isError };
  return undefined;
}
