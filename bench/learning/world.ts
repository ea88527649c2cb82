/**
 * The learning bench's world (bench/learning.bench.ts): what a project is made of, and how a
 * seed lays it out — folders, plans, which kind of failure each plan meets, what shows it
 * before the first attempt, the names in its errors, the words of the fix its agent reports,
 * and whether it fails at all.
 *
 * A project (go.ts, python.ts, node.ts) is a realistic code base and the failures its work
 * typically meets, each told the way its tool prints it. The seed decides everything else,
 * so that no layout is tuned against, and any run can be replayed.
 */
import { mulberry32 } from '../lib.js';

export type Rng = () => number;

export function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length)]!;
}

export function shuffle<T>(rng: Rng, list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function between(rng: Rng, low: number, high: number): number {
  return low + Math.floor(rng() * (high - low + 1));
}

/** What a plan works on: the names its files, its tests and its errors are made of. */
export interface Subject {
  /** The folder (package, module, app) it works in: `internal/billing`. */
  folder: string;
  /** The folder's last segment: `billing`. */
  pkg: string;
  /** The thing, plural, as a table is named: `credit_notes`. */
  table: string;
  /** The thing in words: `credit notes`, `credit note`. */
  plural: string;
  singular: string;
  /** What the plan does with it: `export`. */
  verb: string;
  /** `ExportCreditNotes`, `CreditNote`. */
  Camel: string;
  Single: string;
  /** Line numbers and durations its outputs quote, drawn per plan. */
  line: number;
  millis: number;
  port: number;
}

export function subjectOf(rng: Rng, folder: string, [table, singular]: readonly [string, string], verb: string): Subject {
  const camel = (words: string) =>
    words
      .split(/[\s_-]+/)
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('');
  const plural = table.replace(/_/g, ' ');
  return {
    folder,
    pkg: folder.slice(folder.lastIndexOf('/') + 1),
    table,
    plural,
    singular,
    verb,
    Camel: camel(`${verb} ${plural}`),
    Single: camel(singular),
    line: between(rng, 14, 88),
    millis: between(rng, 8, 95),
    port: between(rng, 32768, 60999),
  };
}

/** Text with `{plural}`, `{singular}`, `{table}`, `{Single}` filled in from a subject. */
export function fill(text: string, s: Subject): string {
  return text.replace(/\{(plural|singular|table|Single|Camel|pkg|verb)\}/g, (_, key: keyof Subject) => String(s[key]));
}

/** Which files a plan writes, in the project's layout. */
export type Variant = 'plain' | 'fixed' | 'futile';

/** A remedy: the agent's words for it, what tells it in a brief, and what tells it in a lesson. */
export interface Remedy {
  /** Two or three ways the agent words it when it reports the fix (HARNESS_INSIGHT); one is drawn per plan. */
  paraphrases: string[];
  /**
   * What the stand-in agent looks for in one entry of its brief's knowledge section to apply the
   * fix: any one list, every word of it (case-insensitive). Its own tokens, never the grader's.
   */
  tokens: string[][];
  /** What the grader looks for in an item's text to say it names this remedy: every pattern. */
  names: RegExp[];
}

export type Role = 'two-wordings' | 'command-only' | 'counter-intuitive' | 'stale' | 'one-off';

/** A kind of failure the project's work meets, and its fix. */
export interface Kind {
  id: string;
  role: Role;
  /** The cause and the fix, in a line, for the report. */
  story: string;
  /**
   * Files that show the cause by what they import: a plan meeting it reads one (in its
   * `files_read`). For the kind in two wordings, each file gives its own wording.
   */
  reads?: { file: string; wording: number }[];
  /** Sentences that say the cause in the plan's own text, in varied words; one may be drawn into a plan's body. */
  text?: string[];
  /** The plan's checks run the project's revealing command (`go test -race`): the only tell of a command-only kind. */
  command?: boolean;
  /** The failing test run, as the tool prints it. */
  output(s: Subject, wording: number): string[];
  /** What the grader looks for in an item's text to say it names this kind's error (every wording). */
  error: RegExp;
  /** The fix (for the stale kind, the fix after the change). */
  fix: Remedy;
  /** The stale kind's fix before the change: from the change on it no longer stops the error. */
  old?: Remedy;
  /** The counter-intuitive kind's obvious repair, which does not help: what the agent tries first, and says. */
  obvious?: Remedy & { said: string };
  /** The files the plan leaves: without the fix, with it, or with the remedy that does not help. */
  files(s: Subject, variant: Variant, stale: boolean): Record<string, string>;
}

/** A project of one ecosystem: its code base, its layout, its commands and the failures its work meets. */
export interface ProjectDef {
  key: string;
  name: string;
  ecosystem: string;
  /** Spec ids: `LED-01`. */
  prefix: string;
  /** Folders a seed draws five from. */
  folders: string[];
  /** Things the plans work on: [table, singular]. */
  things: [string, string][];
  verbs: string[];
  /** Plan titles, one drawn per plan: `{Verb}` is the verb capitalised. */
  titles: string[];
  /** Sentences any plan's body may say: the words clean and failing plans share. */
  generic: string[];
  /** Existing files every plan may read (none shows a cause). */
  commonReads: string[];
  /** The repository before the first spec. */
  base: Record<string, string>;
  /** The change before the spec at index `before` that makes the stale kind's old fix stop working. */
  upgrade: { before: number; message: string; files: Record<string, string> };
  kinds: Kind[];
  oneOffs: Kind[];
  /** The plan's files, in the project's layout; `main` is the one its file_exists check names. */
  paths(s: Subject): { modified: string[]; main: string };
  /** The command its tests_pass check runs; `revealing` for a plan meeting the command-only kind. */
  check(s: Subject, revealing: boolean): string;
  /** A passing run of that command, as the tool prints it. */
  pass(s: Subject, revealing: boolean): string[];
  /** The files a clean plan leaves. */
  cleanFiles(s: Subject): Record<string, string>;
  /** Stand-ins for the project's test tools on the checks' PATH: name → shell script. They pass. */
  tools: Record<string, string>;
}

/** One plan of the world. */
export interface PlanWorld {
  spec: string;
  id: string;
  title: string;
  body: string;
  subject: Subject;
  /** The kind it meets (a recurring kind's or a one-off's id), if any. */
  kind?: string;
  /** Which wording of the two-wordings kind it meets. */
  wording: number;
  /** Whether its first attempt fails without the fix (drawn: most plans that meet a kind do). */
  fails: boolean;
  /** Which paraphrase of the fix its agent reports. */
  paraphrase: number;
  reads: string[];
  modified: string[];
  main: string;
  command: string;
  /** What shows its kind before the first attempt: `command`, `imports <file>`, `text`. */
  cues: string[];
  /** The stale kind's fix has changed by this spec. */
  stale: boolean;
}

export interface SpecWorld {
  id: string;
  slug: string;
  title: string;
  plans: PlanWorld[];
}

export interface ProjectWorld {
  def: ProjectDef;
  seed: number;
  /** The folders drawn, and the kinds each meets. */
  folders: { folder: string; kinds: string[] }[];
  specs: SpecWorld[];
  /** Specs with a one-off, by one-off. */
  oneOffSpecs: Record<string, string>;
}

export const SPECS = 6;
/** The chance that a plan meeting a recurring kind fails its first attempt without the fix. */
export const FAIL_CHANCE = 0.85;
/** The chance that a plan meeting a kind with words for its cause says one of them. */
const TEXT_CHANCE = 0.7;

const SPEC_TITLES = ['Foundations', 'Accounts and limits', 'Money movement', 'Reporting', 'Partner integrations', 'Operations'];

/**
 * Lay a project out from a seed: five folders, each meeting two or three of the recurring kinds
 * (every kind in at least two folders); six specs of 8–10 plans, each recurring kind met by one
 * or two plans a spec in folders that meet it, the rest clean plans in any folder; three
 * one-offs in three clean plans of three specs.
 */
export function drawWorld(def: ProjectDef, seed: number): ProjectWorld {
  // The project's name in the seed: one --seed for every project still lays each out its own way.
  const rng = mulberry32(seed ^ [...def.key].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261));
  const kindIds = def.kinds.map((k) => k.id);
  const folderNames = shuffle(rng, def.folders).slice(0, 5);
  let folders: { folder: string; kinds: string[] }[] = [];
  for (let tries = 0; ; tries++) {
    folders = folderNames.map((folder) => ({ folder, kinds: shuffle(rng, kindIds).slice(0, between(rng, 2, 3)) }));
    if (kindIds.every((k) => folders.filter((f) => f.kinds.includes(k)).length >= 2)) break;
    if (tries > 1000) throw new Error(`${def.key}: no folder layout covers every kind twice`);
  }
  const oneOffSpecIndex = shuffle(rng, [...Array(SPECS).keys()]).slice(0, def.oneOffs.length);
  const oneOffSpecs: Record<string, string> = {};
  const used = new Set<string>();
  const usedTitles = new Set<string>();
  const specs: SpecWorld[] = [];
  for (let si = 0; si < SPECS; si++) {
    const id = `${def.prefix}-0${si + 1}`;
    const stale = si >= def.upgrade.before;
    const size = between(rng, 8, 10);
    const met: (string | undefined)[] = [];
    for (const k of kindIds) for (let n = rng() < 0.35 ? 2 : 1; n > 0; n--) met.push(k);
    // Trim to leave three clean plans, taking only a kind's second plan: every recurring kind is met in every spec,
    // so a kind that recurs has recurred in the first half (a kind met once there is a one-off to any learner).
    while (met.length > size - 3) {
      const twice = met.map((k, i) => i).filter((i) => met.indexOf(met[i]) !== i);
      if (twice.length === 0) break;
      met.splice(twice[Math.floor(rng() * twice.length)]!, 1);
    }
    while (met.length < size) met.push(undefined);
    const oneOff = def.oneOffs.find((_, i) => oneOffSpecIndex[i] === si);
    const order = shuffle(rng, met);
    if (oneOff) {
      const clean = order.findIndex((k) => k === undefined);
      order[clean] = oneOff.id;
      oneOffSpecs[oneOff.id] = id;
    }
    const plans = order.map((kindId, pi): PlanWorld => {
      const kind = kindId === undefined ? undefined : [...def.kinds, ...def.oneOffs].find((k) => k.id === kindId)!;
      const recurring = kind !== undefined && kind.role !== 'one-off';
      const places = recurring ? folders.filter((f) => f.kinds.includes(kind.id)) : folders;
      const folder = pick(rng, places).folder;
      let subject: Subject;
      do subject = subjectOf(rng, folder, pick(rng, def.things), pick(rng, def.verbs));
      while (used.has(`${folder}/${subject.verb}/${subject.table}`));
      used.add(`${folder}/${subject.verb}/${subject.table}`);
      const cues: string[] = [];
      const reads = shuffle(rng, def.commonReads).slice(0, between(rng, 1, 2));
      let wording = 0;
      if (recurring && kind.reads) {
        const read = pick(rng, kind.reads);
        reads.push(read.file);
        wording = read.wording;
        cues.push(`imports ${read.file}`);
      }
      const sentences = shuffle(rng, def.generic).slice(0, between(rng, 2, 3));
      if (recurring && kind.text && (rng() < TEXT_CHANCE || (!kind.reads && !kind.command))) {
        sentences.splice(between(rng, 0, sentences.length), 0, pick(rng, kind.text));
        cues.push('text');
      }
      const revealing = recurring && kind.command === true;
      if (revealing) cues.push('command');
      let title: string;
      do title = fill(pick(rng, def.titles).replace('{Verb}', subject.verb.charAt(0).toUpperCase() + subject.verb.slice(1)), subject);
      while (usedTitles.has(`${id} ${title}`) && rng() < 0.99);
      usedTitles.add(`${id} ${title}`);
      const paths = def.paths(subject);
      const fails = kind === undefined ? false : kind.role === 'one-off' ? true : rng() < FAIL_CHANCE;
      const remedy = kind === undefined ? undefined : kind.old && !stale ? kind.old : kind.fix;
      return {
        spec: id,
        id: `01-${String(pi + 1).padStart(2, '0')}`,
        title,
        body: sentences.map((t) => fill(t, subject)).join(' '),
        subject,
        ...(kind ? { kind: kind.id } : {}),
        wording,
        fails,
        paraphrase: remedy ? Math.floor(rng() * remedy.paraphrases.length) : 0,
        reads: [...new Set(reads)],
        modified: paths.modified,
        main: paths.main,
        command: def.check(subject, revealing),
        cues,
        stale,
      };
    });
    specs.push({ id, slug: SPEC_TITLES[si]!.toLowerCase().replace(/\W+/g, '-'), title: SPEC_TITLES[si]!, plans });
  }
  return { def, seed, folders, specs, oneOffSpecs };
}

/** A plan's PLAN.md. */
export function planText(p: PlanWorld): string {
  const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(', ')}]`;
  return [
    '---',
    `plan_id: "${p.id}"`,
    `title: ${JSON.stringify(p.title)}`,
    'depends_on: []',
    `files_modified: ${list(p.modified)}`,
    `files_read: ${list(p.reads)}`,
    'must_pass:',
    `  - { id: tests, type: tests_pass, command: ${JSON.stringify(p.command)} }`,
    `  - { id: written, type: file_exists, path: ${JSON.stringify(p.main)} }`,
    '---',
    `# ${p.title}`,
    '',
    p.body,
    '',
  ].join('\n');
}
