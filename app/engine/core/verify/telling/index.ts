import { compilers } from './compilers.js';
import { containers } from './containers.js';
import { databases } from './databases.js';
import { dotnet } from './dotnet.js';
import { generic } from './generic.js';
import { go } from './go.js';
import { jvm } from './jvm.js';
import { node } from './node.js';
import { packages } from './packages.js';
import { python } from './python.js';
import { earliest, prepare, type Found, type Recogniser } from './recogniser.js';
import { ruby } from './ruby.js';
import { rust } from './rust.js';

/**
 * The error a tool's output says, read by the recogniser of that tool (one module per
 * ecosystem beside this one). First what a service said — a database driver's message, the
 * container engine's — wherever it is: it is the cause whichever runner reported it. Then the
 * earliest line a tool's recogniser names (a tie goes to the first in RECOGNISERS), the
 * generic shapes of an error last. An output none of them recognises has no recognised error.
 */

export const SERVICES: readonly Recogniser[] = [databases, containers];
export const RECOGNISERS: readonly Recogniser[] = [packages, go, python, node, rust, jvm, dotnet, ruby, compilers, generic];

export interface RecognisedError {
  /** The telling line, as the tool printed it. */
  line: string;
  /** Which tool's output it is. */
  tool: string;
}

function first(recognisers: readonly Recogniser[], lines: readonly string[]): Found | undefined {
  return earliest(...recognisers.map((r) => r.find(lines)));
}

/** The error the output names in a form some tool prints, or undefined when it names none this knows. */
export function recognisedError(output: readonly string[]): RecognisedError | undefined {
  const lines = prepare(output);
  const found = first(SERVICES, lines) ?? first(RECOGNISERS, lines);
  return found === undefined ? undefined : { line: found.line, tool: found.tool };
}
