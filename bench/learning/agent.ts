/**
 * The stand-in agent of the learning bench: a shell script run as the `command` agent, with
 * its brief on stdin, and its world — what the plan's work meets — in files the bench writes
 * outside the repository, where harness never looks.
 *
 * It behaves as a coding agent does on a project with these failures:
 * - the fix in the knowledge section of its brief (one entry carrying the fix's own words, e.g.
 *   `TestMain` and `migrat`, or `mutex`) is applied at once, and the plan passes; a fix of
 *   another kind does not help, nor does a remedy that does not work (the stale kind's old fix
 *   after the change, the counter-intuitive kind's obvious repair): it applies that and fails;
 * - otherwise a plan that meets a failure fails its first attempt, printing the tool's own
 *   output to stderr and exiting 1; a retry finds the fix (the counter-intuitive kind: its first
 *   retry tries the obvious repair and fails again, its second finds the fix), writes it into
 *   the files it changes, and says it in one HARNESS_INSIGHT line;
 * - it commits nothing: harness commits what it leaves.
 *
 * Each attempt appends a line to `$STATE/<spec>/<plan>.log` (`<attempt> ok|failed <why>`) and
 * keeps the knowledge section it was given (`<plan>.<attempt>.knowledge`): what the bench counts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Kind, PlanWorld, ProjectDef } from './world.js';

export const AGENT_SCRIPT = `set -u
brief=$(cat)
w="$WORLD/$HARNESS_SPEC/$HARNESS_PLAN"
s="$STATE/$HARNESS_SPEC"
mkdir -p "$s"
n=$(( $(cat "$s/$HARNESS_PLAN.n" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$s/$HARNESS_PLAN.n"
knowledge=$(printf '%s\\n' "$brief" | awk '/^## What harness has learned that applies here/ { on = 1; next } on && /^## / { exit } on')
printf '%s\\n' "$knowledge" > "$s/$HARNESS_PLAN.$n.knowledge"
# Does one entry of the knowledge section carry every word of one of the lists in $1?
knows() {
  [ -s "$1" ] || return 1
  printf '%s\\n' "$knowledge" | grep '^- ' | awk -v lists="$1" '
    BEGIN { while ((getline l < lists) > 0) sets[n++] = tolower(l) }
    { line = tolower($0); for (i = 0; i < n; i++) { k = split(sets[i], t, "\\t"); ok = 1; for (j = 1; j <= k; j++) if (index(line, t[j]) == 0) ok = 0; if (ok) found = 1 } }
    END { exit found ? 0 : 1 }'
}
put() { cp -R "$w/$1/." . ; }
pass() { cat "$w/pass.out"; echo "$n ok $1" >> "$s/$HARNESS_PLAN.log"; exit 0; }
fail() { cat "$w/fail.out" >&2; echo "$n failed $1" >> "$s/$HARNESS_PLAN.log"; exit 1; }
cat "$w/work.out"
kind=$(cat "$w/kind")
[ "$kind" = none ] && { put plain; pass clean; }
knows "$w/fix.tokens" && { put fixed; echo "Following the note in the brief about this."; pass brief; }
[ "$(cat "$w/fails")" = 1 ] || { put plain; pass unmet; }
[ "$n" -ge "$(cat "$w/need")" ] && { put fixed; cat "$w/insight"; pass found; }
knows "$w/futile.tokens" && { put futile; cat "$w/futile.said"; fail futile-from-brief; }
[ "$n" -ge 2 ] && [ -d "$w/futile" ] && { put futile; cat "$w/futile.said"; fail futile; }
put plain
fail first
`;

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

const tokens = (lists: string[][]) => lists.map((l) => l.join('\t')).join('\n') + '\n';

/** The world files of one plan, under `<world>/<spec>/<plan>/`. */
export async function writePlanWorld(world: string, def: ProjectDef, p: PlanWorld): Promise<void> {
  const dir = join(world, p.spec, p.id);
  await mkdir(dir, { recursive: true });
  const kind: Kind | undefined = p.kind === undefined ? undefined : [...def.kinds, ...def.oneOffs].find((k) => k.id === p.kind);
  const revealing = kind?.command === true;
  const work = [`Reading ${p.reads.join(', ')}`, `Writing ${p.modified.join(', ')}`, `$ ${p.command}`];
  const files: Record<string, string> = {
    kind: `${kind?.id ?? 'none'}\n`,
    fails: p.fails ? '1\n' : '0\n',
    need: kind?.obvious ? '3\n' : '2\n',
    'work.out': `${work.join('\n')}\n`,
    'pass.out': `${def.pass(p.subject, revealing).join('\n')}\n`,
  };
  if (!kind) {
    await writeFile(join(dir, 'kind'), 'none\n');
    await writeTree(dir, files);
    await writeTree(join(dir, 'plain'), def.cleanFiles(p.subject));
    return;
  }
  // Before the change the stale kind's fix is its old one; after it, the old one is a remedy that no longer helps.
  const current = kind.old && !p.stale ? kind.old : kind.fix;
  const futile = kind.obvious ?? (kind.old && p.stale ? kind.old : undefined);
  files['fail.out'] = `${kind.output(p.subject, p.wording).join('\n')}\n`;
  files['fix.tokens'] = tokens(current.tokens);
  files.insight = `HARNESS_INSIGHT ${JSON.stringify({ kind: 'pattern', summary: current.paraphrases[p.paraphrase % current.paraphrases.length] })}\n`;
  if (futile) {
    files['futile.tokens'] = tokens(futile.tokens);
    files['futile.said'] = `${kind.obvious ? kind.obvious.said : `Applying the fix from the brief: ${futile.paraphrases[0]}`}\n`;
    await writeTree(join(dir, 'futile'), kind.files(p.subject, 'futile', p.stale));
  }
  await writeTree(dir, files);
  await writeTree(join(dir, 'plain'), kind.files(p.subject, 'plain', p.stale));
  await writeTree(join(dir, 'fixed'), kind.files(p.subject, 'fixed', p.stale));
}
