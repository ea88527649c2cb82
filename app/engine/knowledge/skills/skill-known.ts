import { findSection, sections } from '../../core/documents/sections.js';
import { citedSignals, readLesson } from '../lessons/lesson-record.js';
import { parseKnowledge } from '../documents/parse.js';
import { prose } from '../signals/signal-record.js';
import type { KnownEntry } from './skill-dedup.js';

/** A store file, its path relative to the store's root. */
export interface StoreText {
  path: string;
  text: string;
}

const SKILL = /^(skills|skills-archived)\/([^/]+)\/SKILL\.md$/;
const DECISION = /^spikes\/[^/]+\/([^/]+)\/DECISION\.md$/;

/** A skill file's name, description and trigger conditions, when it parses; its folder and text otherwise. */
function skillEntry(path: string, text: string, archived: boolean, folder: string): KnownEntry {
  const parsed = parseKnowledge('skill', path, text);
  const all = sections(parsed.body ?? '', parsed.bodyLine ?? 1);
  const triggers = prose(findSection(all, 'Trigger conditions')?.content);
  return {
    path,
    kind: archived ? 'archived-skill' : 'skill',
    name: parsed.data?.name ?? folder,
    text: [parsed.data?.description ?? '', triggers].join('\n') || text,
    evidence: citedSignals(text),
  };
}

/**
 * What deduplication compares a candidate with, from the store's files: skills (active and
 * archived: a rejected skill is not proposed again), lessons and spike decisions. A file that
 * does not parse still counts by its words: deduplication must not let a broken file be
 * extracted again.
 */
export function knownEntries(files: readonly StoreText[]): KnownEntry[] {
  const out: KnownEntry[] = [];
  for (const f of files) {
    const skill = SKILL.exec(f.path);
    if (skill) {
      out.push(skillEntry(f.path, f.text, skill[1] === 'skills-archived', skill[2]!));
      continue;
    }
    if (f.path.startsWith('lessons/') && f.path.endsWith('.lesson.md')) {
      const read = readLesson(f.path, f.text);
      const name = f.path.slice(f.path.lastIndexOf('/') + 1).replace(/\.lesson\.md$/, '');
      out.push(
        'problem' in read
          ? { path: f.path, kind: 'lesson', name, text: f.text, evidence: citedSignals(f.text) }
          : { path: f.path, kind: 'lesson', name, text: [read.title, read.text.when].join('\n'), evidence: read.evidence },
      );
      continue;
    }
    const decision = DECISION.exec(f.path);
    if (decision) out.push({ path: f.path, kind: 'decision', name: decision[1]!, text: f.text, evidence: [] });
  }
  return out;
}
