import type { Spec } from '../spec/model.js';
import type { PlanState } from '../state/plan-state.js';
import type { GraphAnalysis } from './analyze.js';
import { MERMAID_MAX_TEXT } from './render.js';

/** What a stretch of a plan's time went to, where a runtime recorded its stages (forge/run-record.ts). */
export type TimelineBarKind = 'runner' | 'set-up' | 'agent' | 'verification' | 'person' | 'usage limit';

/** One stretch of a plan's time: a stage of a run, or the wait between two. */
export interface TimelineBar {
  kind: TimelineBarKind;
  start: string;
  end: string;
}

/**
 * When a plan ran: its start, and its end once it has one; with `bars`, what each stretch of
 * it went to (drawn as they are, instead of one bar from start to end).
 */
export interface PlanSpan {
  start: string;
  end?: string;
  bars?: readonly TimelineBar[];
}

/** How a bar other than the agent's is named after its plan's id. */
const BAR_NAMES: Record<Exclude<TimelineBarKind, 'agent'>, string> = {
  runner: 'waiting for a runner',
  'set-up': 'set-up',
  verification: 'verification',
  person: 'waiting for a person',
  'usage limit': "waiting for the model's usage limit",
};

/** A timeline shorter than this has its axis in seconds. */
const SECONDS_AXIS_BELOW_MS = 15 * 60_000;

/** Bars above which the timeline shows one bar per phase: a chart of hundreds of bars is read by nobody, and Mermaid lays it out slowly. */
export const TIMELINE_MAX_BARS = 100;

/** A task's name as Mermaid's gantt grammar takes it: no `:` (it ends the name), `#` or `;` (comments and statement ends), one line. */
function taskName(text: string): string {
  return text
    .replace(/[:;#]/g, ' ')
    .replace(/[\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `2026-03-02T09:41:00` in UTC, as dateFormat YYYY-MM-DDTHH:mm:ss reads it. */
function at(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19);
}

function tag(state: PlanState | undefined, critical: boolean): string {
  const tags = [critical ? 'crit' : undefined, state === 'verified' ? 'done' : state === 'running' || state === 'checkpoint' ? 'active' : undefined].filter(
    Boolean,
  );
  return tags.length > 0 ? `${tags.join(', ')}, ` : '';
}

/**
 * Where the time went: a Mermaid `gantt` of the plans that have run, a section per phase, each
 * plan a bar from its last attempt's start to its end (to `now` while it runs), or, where its
 * stages were recorded (`bars`), a bar per stage: the agent's named after the plan, the others
 * after what they were (set-up, verification, waiting for a person). A verified plan's bars are
 * done, a running one's active, the critical path's agent marked `crit`. Above TIMELINE_MAX_BARS
 * bars, or past Mermaid's text limit, one bar per phase (its first start to its last end), as
 * the dependency graph collapses. Undefined before any plan has run.
 */
export function timelineMermaid(
  spec: Spec,
  analysis: GraphAnalysis,
  spans: ReadonlyMap<string, PlanSpan>,
  states: ReadonlyMap<string, PlanState>,
  now: Date,
): string | undefined {
  const ran = spec.plans.filter((p) => spans.has(p.id));
  if (ran.length === 0) return undefined;
  const timeline: Timeline = { spec, spans, states, now, critical: new Set(analysis.critical.path.map((i) => spec.plans[i]!.id)) };
  const head = chartHead(
    timeline,
    ran.map((p) => extent(spans.get(p.id)!)),
  );
  const byPlan = planBars(timeline);
  const text = `${[...head, ...byPlan.lines].join('\n')}\n`;
  if (byPlan.bars <= TIMELINE_MAX_BARS && text.length <= MERMAID_MAX_TEXT) return text;
  return `${[...head, '  section Phases', ...phaseBars(timeline)].join('\n')}\n`;
}

/** What the chart is drawn from: the spec, when its plans ran and their states, the critical path's plan ids, the time now. */
interface Timeline {
  spec: Spec;
  spans: ReadonlyMap<string, PlanSpan>;
  states: ReadonlyMap<string, PlanState>;
  critical: ReadonlySet<string>;
  now: Date;
}

/** A span's first start to its last end, where its stages were recorded; the span itself otherwise. */
function extent(span: PlanSpan): PlanSpan {
  return span.bars && span.bars.length > 0
    ? {
        start: span.bars.map((b) => b.start).sort()[0]!,
        end: span.bars
          .map((b) => b.end)
          .sort()
          .at(-1)!,
      }
    : span;
}

/** A span's end, or `now` while it runs. */
function spanEnd(timeline: Timeline, span: PlanSpan): string {
  return span.end ?? timeline.now.toISOString();
}

/** The gantt's header: its title, date format and an axis fit for the time the plans that ran (their extents) took. */
function chartHead(timeline: Timeline, extents: readonly PlanSpan[]): string[] {
  // A run of minutes is read in seconds: an axis of hours and minutes would say 12:52 at every tick.
  const first = Date.parse(extents.map((s) => s.start).sort()[0]!);
  const last = Date.parse(
    extents
      .map((s) => spanEnd(timeline, s))
      .sort()
      .at(-1)!,
  );
  const axis = last - first < SECONDS_AXIS_BELOW_MS ? '%H:%M:%S' : '%H:%M';
  const { spec } = timeline;
  return ['gantt', `  title ${taskName(`${spec.id} ${spec.title}`)}`, '  dateFormat YYYY-MM-DDTHH:mm:ss', `  axisFormat ${axis}`];
}

/** A section per phase that ran, a bar per plan (or per recorded stage of it); with how many bars that is. */
function planBars(timeline: Timeline): { lines: string[]; bars: number } {
  const { spec, spans, states, critical } = timeline;
  const lines: string[] = [];
  let bars = 0;
  for (const phase of spec.phases) {
    const plans = phase.plans.filter((id) => spans.has(id));
    if (plans.length === 0) continue;
    lines.push(`  section ${taskName(`${phase.id} ${phase.title}`)}`);
    for (const id of plans) {
      const span = spans.get(id)!;
      const title = taskName(`${id} ${spec.planById.get(id)!.title}`);
      if (!span.bars || span.bars.length === 0) {
        lines.push(`  ${title} :${tag(states.get(id), critical.has(id))}${at(span.start)}, ${at(spanEnd(timeline, span))}`);
        bars++;
        continue;
      }
      for (const bar of span.bars) {
        const name = bar.kind === 'agent' ? title : `${id} ${BAR_NAMES[bar.kind]}`;
        lines.push(`  ${name} :${tag(states.get(id), bar.kind === 'agent' && critical.has(id))}${at(bar.start)}, ${at(bar.end)}`);
        bars++;
      }
    }
  }
  return { lines, bars };
}

/** One bar per phase that ran: its first start to its last end, done when all its plans are verified, active while one runs. */
function phaseBars(timeline: Timeline): string[] {
  const { spec, spans, states, critical } = timeline;
  const lines: string[] = [];
  for (const phase of spec.phases) {
    const phaseSpans = phase.plans.flatMap((id) => (spans.has(id) ? [spans.get(id)!] : [])).map(extent);
    if (phaseSpans.length === 0) continue;
    const first = phaseSpans.map((s) => s.start).sort()[0]!;
    const last = phaseSpans
      .map((s) => spanEnd(timeline, s))
      .sort()
      .at(-1)!;
    const state: PlanState | undefined = phase.plans.every((id) => states.get(id) === 'verified')
      ? 'verified'
      : phase.plans.some((id) => states.get(id) === 'running' || states.get(id) === 'checkpoint')
        ? 'running'
        : undefined;
    const onPath = phase.plans.some((id) => critical.has(id));
    lines.push(
      `  ${taskName(`${phase.id} ${phase.title}`)} (${phaseSpans.length} of ${phase.plans.length} plans) :${tag(state, onPath)}${at(first)}, ${at(last)}`,
    );
  }
  return lines;
}
