import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { formatBytes, MAX_DOCUMENT_BYTES } from '../engine/core/spec/limits.js';
import { citedSignals, readLesson, type LessonRecord } from '../engine/knowledge/lessons/lesson-record.js';
import { readSignal, type SignalRecord, type Unreadable } from '../engine/knowledge/signals/signal-record.js';
import { isMissing } from './files.js';
import { readCapped } from './spec-files.js';

/**
 * The part of a knowledge store on this machine that reflection reads: every signal under
 * `signals/` and every lesson under `lessons/`, parsed. Unlike a spec tree, a store grows
 * with every run, so it is read without a cap on the number of files (tens of thousands of
 * signals are a few megabytes); a file too large, not UTF-8 or not valid is reported, never
 * guessed at.
 */

export interface ReflectionStore {
  signals: SignalRecord[];
  lessons: LessonRecord[];
  unreadableSignals: Unreadable[];
  /** With the signal paths their text cites, which stay taken (reflect's unreadableLessons). */
  unreadableLessons: (Unreadable & { evidence: string[] })[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (e) {
    if (isMissing(e)) return [];
    throw e;
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

function readText(full: string, shown: string): { text: string } | Unreadable {
  const file = readCapped(full, shown, MAX_DOCUMENT_BYTES);
  const size = file.size ?? file.bytes.length;
  if (size > MAX_DOCUMENT_BYTES)
    return { file: shown, line: 1, problem: `${formatBytes(size)}, over the ${formatBytes(MAX_DOCUMENT_BYTES)} a knowledge file may have` };
  try {
    return { text: decoder.decode(file.bytes) };
  } catch {
    return { file: shown, line: 1, problem: 'not UTF-8 text' };
  }
}

/**
 * Read the store at `store`; each path is given as `prefix` + its path in the store (the
 * store's place in the repository, `.harness/knowledge/`), as lessons cite them. A store that
 * does not exist is an empty one.
 */
export async function readReflectionStore(store: string, prefix: string): Promise<ReflectionStore> {
  const out: ReflectionStore = { signals: [], lessons: [], unreadableSignals: [], unreadableLessons: [] };
  try {
    if (!(await stat(store)).isDirectory()) throw new Error(`${store} is not a directory`);
  } catch (e) {
    if (isMissing(e)) return out;
    throw e;
  }
  const shown = (full: string) => `${prefix}${relative(store, full).split(sep).join('/')}`;
  for (const full of await filesUnder(join(store, 'signals'), '.signal.md')) {
    const path = shown(full);
    const read = readText(full, path);
    if ('problem' in read) {
      out.unreadableSignals.push(read);
      continue;
    }
    const record = readSignal(path, read.text);
    if ('problem' in record) out.unreadableSignals.push(record);
    else out.signals.push(record);
  }
  for (const full of await filesUnder(join(store, 'lessons'), '.lesson.md')) {
    const path = shown(full);
    const read = readText(full, path);
    if ('problem' in read) {
      out.unreadableLessons.push({ ...read, evidence: [] });
      continue;
    }
    const record = readLesson(path, read.text);
    if ('problem' in record) out.unreadableLessons.push({ ...record, evidence: citedSignals(read.text) });
    else out.lessons.push(record);
  }
  return out;
}
