/**
 * The `<task>` blocks of a GSD plan body: what the importer turns into checks. GSD writes
 *   <task type="auto"> <name>…</name> … <verify>npm test</verify> </task>
 *   <task type="checkpoint:human-verify" gate="blocking"> <what-built>…</what-built>
 *     <how-to-verify>…</how-to-verify> <resume-signal>…</resume-signal> </task>
 * and, in later versions, `<verify><automated>cmd</automated></verify>`.
 */

export interface GsdTask {
  /** "auto", "checkpoint:human-verify", "checkpoint:decision", … */
  type: string;
  name?: string;
  /** The text of `<verify>`, or of `<automated>` inside it. */
  verify?: string;
  whatBuilt?: string;
  howToVerify?: string;
  /** `<decision>` / `<context>` of a decision checkpoint, `<action>` of a human action. */
  action?: string;
  decision?: string;
  /** 1-based line of `<task` in the body. */
  line: number;
}

const TASK = /<task\b([^>]*)>([\s\S]*?)<\/task>/g;

export function gsdTasks(body: string): GsdTask[] {
  const out: GsdTask[] = [];
  for (const m of body.matchAll(TASK)) {
    const attrs = m[1]!;
    const inner = m[2]!;
    const type = /\btype\s*=\s*["']([^"']+)["']/.exec(attrs)?.[1]?.trim() ?? 'auto';
    const task: GsdTask = { type, line: body.slice(0, m.index).split('\n').length };
    const name = element(inner, 'name');
    if (name) task.name = name;
    const verify = element(inner, 'verify');
    if (verify) task.verify = element(verify, 'automated') ?? verify;
    const whatBuilt = element(inner, 'what-built');
    if (whatBuilt) task.whatBuilt = whatBuilt;
    const how = element(inner, 'how-to-verify');
    if (how) task.howToVerify = how;
    const action = element(inner, 'action');
    if (action) task.action = action;
    const decision = element(inner, 'decision');
    if (decision) task.decision = decision;
    out.push(task);
  }
  return out;
}

function element(text: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`).exec(text);
  const value = m?.[1]?.replace(/^\s*\n/, '').replace(/\s+$/, '');
  return value ? dedent(value) : undefined;
}

function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length);
  const cut = Math.min(...indents.slice(1), indents[0] === 0 && indents.length > 1 ? Infinity : (indents[0] ?? 0));
  return lines
    .map((l, i) => (i === 0 ? l.trimStart() : l.slice(Math.min(cut, l.length - l.trimStart().length))))
    .join('\n')
    .trim();
}
