import { isMap, isSeq, parseDocument, Scalar } from 'yaml';
import { formatCondition, parseCondition, type Condition } from '../documents/conditions.js';
import { evidenceLine } from './lesson-document.js';
import { signalKey, type LessonRecord } from './lesson-record.js';
import type { SignalRecord } from '../signals/signal-record.js';

const FRONTMATTER = /^(---[ \t]*\n)([\s\S]*?\n)(---[ \t]*(?:\n|$))/;
const EVIDENCE_HEADING = /^##[ \t]+evidence[ \t]*:?[ \t]*#*[ \t]*$/i;
const NEXT_SECTION = /^#{1,2}[ \t]+\S/;

/**
 * A lesson with more evidence: the signals appended to its Evidence list (those it cites
 * already left out), `evidence_count` raised by as many, `last_updated` set to today and the
 * signals' projects added to `projects` (unless it is empty: a lesson that holds everywhere
 * stays so). The rest of the file, comments and wording included, is left as it is: it is
 * a person's now. Undefined when every signal is cited already.
 */
export interface LinkUpdate {
  /** Signatures the lesson is about now (another wording of its cause joined it): added to `signatures`. */
  signatures?: readonly string[];
  /** When it applies, learnt again with the new evidence: replaces `applies_when` unless a person wrote it (conditions without counts). */
  conditions?: readonly Condition[];
  /** The "When this applies" text for those conditions, put in place of harness's own draft of it. */
  when?: string;
  /** Its fix went stale: the new Recommendation, and the line the Superseded section keeps of the old one. */
  supersede?: { recommendation: string; note: string };
}

export function linkedLesson(lesson: LessonRecord, signals: readonly SignalRecord[], today: Date, update: LinkUpdate = {}): string | undefined {
  const cited = new Set(lesson.evidence.map(signalKey));
  const added = signals.filter((s) => !cited.has(signalKey(s.file)));
  if (added.length === 0) return undefined;

  const text = lesson.source.replace(/\r\n?/g, '\n');
  const fm = FRONTMATTER.exec(text);
  if (!fm) throw new TypeError(`${lesson.file} has no frontmatter, yet it was read as a lesson`);
  const doc = parseDocument(fm[2]!);
  if (!isMap(doc.contents)) throw new TypeError(`${lesson.file}: its frontmatter is not a mapping, yet it was read as a lesson`);
  doc.set('evidence_count', lesson.lesson.evidence_count + added.length);
  const date = new Scalar(today.toISOString().slice(0, 10));
  // Quoted: YAML 1.1 readers (PyYAML) would take a bare date for a date object, not text.
  date.type = Scalar.QUOTE_DOUBLE;
  doc.set('last_updated', date);
  if (lesson.lesson.projects.length > 0) {
    const projects = [...new Set([...lesson.lesson.projects, ...added.map((s) => s.signal.project)])];
    if (projects.length > lesson.lesson.projects.length) {
      const node = doc.createNode(projects.sort());
      const old = doc.get('projects', true);
      // Written the way it was: [a, b] stays on one line.
      if (isSeq(old) && isSeq(node)) node.flow = Boolean(old.flow);
      doc.set('projects', node);
    }
  }
  const known = lesson.lesson.signatures ?? [];
  const signatures = [...known, ...(update.signatures ?? []).filter((s) => !known.includes(s))];
  if (signatures.length > known.length) setList(doc, 'signatures', signatures);
  const written = lesson.lesson.applies_when ?? [];
  // A person's conditions (without counts) are theirs; harness's own are learnt again with the new evidence.
  const learnt = written.every((c) => parseCondition(c)?.seen !== undefined);
  const replaceWhen = learnt && update.conditions !== undefined && update.conditions.length > 0;
  if (replaceWhen) setList(doc, 'applies_when', update.conditions!.map(formatCondition));
  const frontmatter = `${fm[1]}${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}${fm[3]}`;
  let body = recounted(text.slice(fm[0].length), lesson, added);
  // harness's draft of when it applies follows the conditions; a person's own words stay.
  if (replaceWhen && update.when !== undefined && /Drafted by harness/.test(lesson.text.evidence) && /^Plans (?:that|whose|like) /.test(lesson.text.when))
    body = withSection(body, 'When this applies', update.when);
  if (update.supersede) {
    body = withSection(body, 'Recommendation', update.supersede.recommendation);
    // An older draft said the fix in the lesson's statement too: that sentence goes with the fix.
    body = body.replace(/ What fixed it: [^\n]*?\.(?=\n|$)/, '');
    body = withSuperseded(body, update.supersede.note);
  }
  return `${frontmatter}${withEvidence(body, added.map(evidenceLine))}`;
}

function setList(doc: ReturnType<typeof parseDocument>, key: string, values: readonly string[]): void {
  const node = doc.createNode([...values]);
  const old = doc.get(key, true);
  if (isSeq(old) && isSeq(node)) node.flow = Boolean(old.flow);
  doc.set(key, node);
}

/** The body with a `## <title>` section's content replaced (added before Evidence when there is none). */
function withSection(body: string, title: string, content: string): string {
  const rows = body.split('\n');
  const heading = new RegExp(`^##[ \\t]+${title}[ \\t]*:?[ \\t]*#*[ \\t]*$`, 'i');
  const start = rows.findIndex((r) => heading.test(r));
  if (start === -1) {
    const evidence = rows.findIndex((r) => EVIDENCE_HEADING.test(r));
    const at = evidence === -1 ? rows.length : evidence;
    return [...rows.slice(0, at), `## ${title}`, '', content, '', ...rows.slice(at)].join('\n');
  }
  let end = rows.length;
  for (let i = start + 1; i < rows.length; i++) {
    if (NEXT_SECTION.test(rows[i]!)) {
      end = i;
      break;
    }
  }
  return [...rows.slice(0, start + 1), '', content, '', ...rows.slice(end)].join('\n');
}

/** A line added to the lesson's Superseded section (made before Evidence when there is none). */
function withSuperseded(body: string, note: string): string {
  const rows = body.split('\n');
  const start = rows.findIndex((r) => /^##[ \t]+superseded[ \t]*$/i.test(r));
  if (start === -1) {
    const evidence = rows.findIndex((r) => EVIDENCE_HEADING.test(r));
    const at = evidence === -1 ? rows.length : evidence;
    return [...rows.slice(0, at), '## Superseded', '', `- ${note}`, '', ...rows.slice(at)].join('\n');
  }
  let at = start + 1;
  while (at < rows.length && !NEXT_SECTION.test(rows[at]!)) at++;
  while (at - 1 > start && rows[at - 1]!.trim() === '') at--;
  return [...rows.slice(0, at), `- ${note}`, ...rows.slice(at)].join('\n');
}

const EVIDENCE_PLACE = /^- `[^`]+` \([a-z]+, (?:low|medium|high), ([^,]+), \d{4}-[^)]*\)/gm;

/** The count harness wrote into a drafted lesson: "seen 3 times in 2 places so far". */
const GENERATED_COUNT = /\bseen (\d+) times? in (\d+) places? so far\b/;

/**
 * The drafted lesson's generated count brought up to date with its evidence, and nothing else:
 * a person who rewrote the sentence wrote their own words, and those are kept as they are.
 */
function recounted(body: string, lesson: LessonRecord, added: readonly SignalRecord[]): string {
  const m = GENERATED_COUNT.exec(body);
  if (!m) return body;
  const times = Number(m[1]) + added.length;
  // The places its evidence lines name (evidenceLine: "(type, severity, place, time)"), and the new signals'.
  const cited = [...lesson.source.matchAll(EVIDENCE_PLACE)].map((e) => e[1]!);
  const places = Math.max(Number(m[2]), new Set([...cited, ...added.map(placeOf)]).size);
  return body.replace(GENERATED_COUNT, `seen ${times} time${times === 1 ? '' : 's'} in ${places} place${places === 1 ? '' : 's'} so far`);
}

function placeOf(s: SignalRecord): string {
  return [s.signal.project, s.signal.spec, s.signal.plan].filter((x) => x !== undefined).join(' ');
}

/** The body with lines added at the end of its Evidence list (after its last item), or a new Evidence section. */
function withEvidence(body: string, lines: readonly string[]): string {
  const rows = body.split('\n');
  const start = rows.findIndex((r) => EVIDENCE_HEADING.test(r));
  if (start === -1) return `${body.replace(/\n*$/, '\n')}\n## Evidence\n\n${lines.join('\n')}\n`;
  let end = rows.length;
  for (let i = start + 1; i < rows.length; i++) {
    if (NEXT_SECTION.test(rows[i]!)) {
      end = i;
      break;
    }
  }
  let at = -1;
  for (let i = start + 1; i < end; i++) if (/^[ \t]*[-*][ \t]/.test(rows[i]!)) at = i;
  if (at === -1) {
    at = start;
    while (at + 1 < end && rows[at + 1]!.trim() === '') at++;
    return [...rows.slice(0, at + 1), ...lines, '', ...rows.slice(at + 1)].join('\n');
  }
  // An item may continue on the lines below it (indented): the new lines go after all of it.
  while (at + 1 < end && /^[ \t]+\S/.test(rows[at + 1]!)) at++;
  return [...rows.slice(0, at + 1), ...lines, ...rows.slice(at + 1)].join('\n');
}
