import { changesAnything, type Command } from '../../engine/forge/command.js';
import { ParseError } from '../../engine/forge/parse-command.js';
import { permits } from '../../engine/forge/permits.js';
import type { Invocation } from './invocation.js';

/**
 * Why a command may not run, or undefined when it may (docs/design.md: only people with write
 * access, configurable, may change anything; bots and forks never).
 *
 * - Bots are refused everything, so that two apps can never drive each other in a loop.
 * - `help` and `status` change nothing: anyone else may run them, and no request is spent.
 * - Other commands need the role `permission` names in .github/harness.yml (write unless
 *   configured), checked through the API at the moment of the command, since an
 *   author_association in the payload says nothing of teams or custom roles.
 * - On a pull request from a fork, nothing that changes anything runs: the PR's content comes
 *   from outside the repository, whoever comments.
 */
export async function refusal(inv: Invocation, command: Command | ParseError, senderIsBot: boolean): Promise<string | undefined> {
  if (senderIsBot) return `Thanks, but harness takes commands from people only, not from bots (@${inv.actor}), so nothing was run.`;
  // A line that does not parse is answered with the help text, which changes nothing either.
  if (command instanceof ParseError || !changesAnything(command)) return undefined;
  const need = (await inv.config()).permission;
  const have = await inv.github.role(inv.actor);
  if (!permits(have, need)) {
    return [
      `Sorry @${inv.actor}, \`${command.name}\` changes things, so it needs the ${need} role on this repository or above, and you have ${have === 'none' ? 'no role' : `the ${have} role`}. Nothing was run.`,
      'Anyone may ask for `status` or `help`; for the rest, ask someone with access.',
    ].join(' ');
  }
  if ((await inv.pull())?.fromFork) {
    return `Sorry @${inv.actor}, commands that change anything do not run on pull requests from forks: what they act on would come from outside this repository. Nothing was run.`;
  }
  return undefined;
}
