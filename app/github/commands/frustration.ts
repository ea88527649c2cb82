import type { Command } from '../../engine/forge/command.js';
import { changesAnything } from '../../engine/forge/command.js';
import { frustrationSignal } from '../../engine/forge/frustration.js';
import { parseCommand } from '../../engine/forge/parse-command.js';
import type { CommentRecord } from '../../gateway/comments.js';
import { voiceCounts } from '../knowledge/learning-voice.js';
import { captureFromApp } from './signals.js';
import type { Invocation } from './invocation.js';

/** The sticky status comment's first line, which names the spec a spec PR is about. */
const STATUS_MARKER = /^<!-- harness:status (\S+) -->/;

/** The spec of the sticky status comments in the thread: only the App's own (its login asked only when some bot's comment has the marker). */
async function stickySpec(inv: Invocation, thread: readonly CommentRecord[]): Promise<string | undefined> {
  const marked = thread.filter((c) => c.authorType === 'Bot' && STATUS_MARKER.test(c.body));
  if (marked.length === 0) return undefined;
  const self = await inv.github.selfLogin();
  const specs = new Set(marked.filter((c) => c.author === self).flatMap((c) => STATUS_MARKER.exec(c.body)?.[1] ?? []));
  return specs.size === 1 ? [...specs][0] : undefined;
}

/**
 * The thread as far as it counts: the App's comments, the command's author's (who was just
 * let through), and those of people whose commands the App would run (the `permission` role
 * of .github/harness.yml). On a public repository anyone may comment, and a refused command
 * or answer is no earlier attempt of anyone's: counted, two strangers' refused retries would
 * make a writer's first retry "the third time". One role read per other person who wrote a
 * command in the thread, and none when nobody else did.
 */
async function countedThread(inv: Invocation, thread: readonly CommentRecord[], author: string): Promise<CommentRecord[]> {
  const commanders = new Set(
    thread
      .filter((c) => c.authorType !== 'Bot' && c.author !== author)
      .filter((c) => {
        const parsed = parseCommand(c.body);
        return parsed !== undefined && !(parsed instanceof Error) && changesAnything(parsed);
      })
      .map((c) => c.author),
  );
  if (commanders.size === 0) return [...thread];
  const need = (await inv.config()).permission;
  const counted = new Set([author]);
  for (const person of commanders) if (await voiceCounts(inv.github, need, { login: person })) counted.add(person);
  return thread.filter((c) => c.authorType === 'Bot' || counted.has(c.author));
}

/**
 * After a command is answered: was it a person repeating or contradicting an earlier request in
 * the same thread (engine/forge/frustration.ts)? Costs nothing on a thread with no other
 * comment (the webhook's count says so); otherwise one read of the thread, and a signal on the
 * spec's signals PR when there is frustration to note. Never blocking.
 */
export async function noteFrustration(
  inv: Invocation,
  command: Command,
  comment: { id: number; author: string },
  issue: { number: number; comments: number },
): Promise<void> {
  if (!changesAnything(command) || issue.comments === 0) return;
  try {
    const thread = await countedThread(inv, await inv.github.comments(issue.number), comment.author);
    const spec =
      ('spec' in command ? command.spec : undefined) ?? (inv.place.kind === 'issue' ? inv.place.plan?.spec : undefined) ?? (await stickySpec(inv, thread));
    const place =
      inv.place.kind === 'pull' ? `pull request #${issue.number}` : `${inv.place.kind === 'issue' && inv.place.plan ? 'plan issue' : 'issue'} #${issue.number}`;
    const draft = frustrationSignal({ command, comment, thread, ...(spec === undefined ? {} : { spec }), place });
    if (!draft) return;
    if (draft.spec === undefined) {
      inv.log.info(`frustration on ${place} not filed: the thread names no one spec whose signals PR could take it`);
      return;
    }
    await captureFromApp(inv, { spec: draft.spec, drafts: [draft], what: `frustration on ${place}`, origin: `comment:${comment.id}` });
  } catch (e) {
    inv.log.warn(`could not look for frustration on #${issue.number}: ${(e as Error).message}`);
  }
}
