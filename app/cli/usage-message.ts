import { didYouMean } from '../engine/core/spec/suggest.js';

/**
 * What `harness <command>` prints for a usage error (exit 2): the problem, the command's
 * synopsis and where the rest of its help is. The full help is for `--help`; reprinting
 * it after every typo buries the one line that matters.
 */
export function usageMessage(command: string, problem: string, usage: string): string {
  return `harness ${command}: ${problem}\n\n${synopsis(usage)}\nRun "harness ${command} --help" for every option.\n`;
}

/** The first paragraph of a command's usage: its "Usage: …" line(s). */
export function synopsis(usage: string): string {
  const end = usage.indexOf('\n\n');
  return end === -1 ? usage.trimEnd() : usage.slice(0, end);
}

/** The options a command's usage lists, such as --slots and -h. */
export function optionsOf(usage: string): string[] {
  return [...new Set(usage.match(/(?<![\w-])--?[a-z][a-z-]*/g) ?? [])];
}

/**
 * Node's parseArgs errors in the CLI's own words: Node's text names the option in quotes it
 * does not balance and explains `--` escaping nobody asked about.
 */
export function parseArgsMessage(e: { code: string; message: string }, usage: string): string {
  const quoted = /'([^']*)'/.exec(e.message)?.[1];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const flag = quoted ?? e.message;
      const known = optionsOf(usage);
      const near = didYouMean(flag, known);
      return `unknown option ${flag}${near || `; the options are ${known.join(', ')}`}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = /^(--?[\w-]+)/.exec(quoted ?? '')?.[1];
      if (flag && /argument missing/.test(e.message)) return `${flag} needs a value, such as ${flag} ${exampleValue(usage, flag)}`;
      if (flag) return `${flag} takes no value`;
      return e.message;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted ?? e.message}"`;
    default:
      return e.message;
  }
}

/** The placeholder the usage shows after a flag ("--slots N" → N), for the message. */
function exampleValue(usage: string, flag: string): string {
  const escaped = flag.replace(/[-]/g, '\\-');
  return new RegExp(`${escaped}[ =]([A-Z][A-Z_]*|[a-z]+(?:\\|[a-z]+)+)`).exec(usage)?.[1] ?? 'VALUE';
}
