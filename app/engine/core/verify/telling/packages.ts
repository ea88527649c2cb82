import { earliest, prepare, unframed, type Found, type Recogniser } from './recogniser.js';

/**
 * Package managers: npm (`npm error …`, `npm ERR! …`: the first line that says what went
 * wrong, not its code, its log or a script's exit), pip (`ERROR: Could not find a version that
 * satisfies the requirement …`), cargo's manifest and resolution errors (`error: no matching
 * package named `serde` found`) and the go command's module errors (`go: updates to go.mod
 * needed`, `missing go.sum entry for module providing package …`).
 */

const NPM = /^npm (?:ERR!|error)(?: (.*))?$/;
/** npm's lines that frame the message or report a script's exit: the cause is elsewhere. */
const NPM_FRAME =
  /^(?:code \S+$|errno \S+$|syscall \S+$|path \S|signal \S|A complete log|\/\S+\.log$|Test failed|Failed at the|This is probably not a problem with npm|Exit status|Lifecycle script|command failed|command sh |command \S+$|workspace |location |Did you mean|To see a list of scripts|Usage:|Run "npm help|aliases: |Log files were not written|You can rerun the command|\d{3}\s*$|\s*$)/;

function npm(lines: readonly string[]): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    const m = NPM.exec(lines[at]!.trim());
    if (m === null) continue;
    const message = (m[1] ?? '').trim();
    if (message === '' || NPM_FRAME.test(message)) continue;
    return { at, line: lines[at]!.trim(), tool: 'npm' };
  }
  return undefined;
}

const PIP =
  /^(?:ERROR: (?:Could not find a version|No matching distribution found|Could not install packages|Cannot install|ResolutionImpossible|Invalid requirement|Could not open requirements file|Failed building wheel|Could not build wheels|Package '[^']*' requires a different Python|Directory '[^']*' is not installable|Failed to build)|error: (?:subprocess-exited-with-error|externally-managed-environment|metadata-generation-failed))/;

const CARGO =
  /^error: (?:no matching package (?:named|found)|failed to select a version|failed to (?:get|load|parse|download|resolve|read|fetch)\b|could not find `?Cargo\.toml|package `[^`]*` cannot be built|the lock file \S+ needs to be updated|duplicate key|current package believes it's in a workspace|invalid (?:type|value|table header)|unused manifest key|cannot update the lock file)/;

const GO_COMMAND =
  /^go: (?:updates to go\.mod needed|.*missing go\.sum entry|cannot find main module|go\.mod file not found|errors parsing go\.mod|inconsistent vendoring|module \S+ found \S+ but does not contain package|.*: (?:unknown revision|invalid version|no matching versions|reading \S+: \d{3})|cannot determine module path|downloading \S+ \S+: )/;
const GO_IMPORT =
  /^(?:\S+\.go:\d+:\d+: )?(?:missing go\.sum entry for module providing package|no required module provides package|cannot find module providing package|module \S+ provides package \S+ and is replaced but not required|package \S+ is not in (?:GOROOT|std))/;

function matching(lines: readonly string[], tool: string, ...patterns: RegExp[]): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    const line = unframed(lines[at]!);
    if (patterns.some((re) => re.test(line))) return { at, line, tool };
  }
  return undefined;
}

export const packages: Recogniser = {
  name: 'packages',
  find(output) {
    const lines = prepare(output);
    return earliest(npm(lines), matching(lines, 'pip', PIP), matching(lines, 'cargo', CARGO), matching(lines, 'go mod', GO_COMMAND, GO_IMPORT));
  },
};
