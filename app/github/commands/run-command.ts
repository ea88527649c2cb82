import type { Command } from '../../engine/forge/command.js';
import { helpText } from '../../engine/forge/help.js';
import { abort } from './abort.js';
import { execute } from './execute.js';
import type { Invocation } from './invocation.js';
import { reflect } from './reflect.js';
import { respond } from './respond.js';
import { retry } from './retry.js';
import { spike } from './spike.js';
import { status } from './status.js';
import { verify } from './verify.js';

/** Runs an authorised command; the answer to post is what it returns. */
export async function runCommand(inv: Invocation, command: Command, askedIn: string): Promise<string> {
  switch (command.name) {
    case 'execute':
      return execute(inv, command);
    case 'status':
      return status(inv, command);
    case 'verify':
      return verify(inv, command);
    case 'retry':
      return retry(inv, command);
    case 'abort':
      return abort(inv, command);
    case 'respond':
      return respond(inv, command);
    case 'spike':
      return spike(inv, command, askedIn);
    case 'reflect':
      return reflect(inv);
    case 'help':
      return helpText();
  }
}
