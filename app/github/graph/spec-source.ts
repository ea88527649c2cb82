import type { Context } from 'probot';
import { loadSpec } from '../../engine/core/spec/load.js';
import type { Spec } from '../../engine/core/spec/model.js';
import { normalizeRepoPath } from '../../engine/core/spec/paths.js';
import type { SpecFile } from '../../engine/core/spec/text.js';
import type { ParsedMarker } from '../../engine/forge/plan-issue.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import type { Gateway } from '../../gateway/gateway.js';
import { readConfig } from '../config.js';
import { readSpecFiles } from '../spec-pr/read-spec.js';

/**
 * Where a spec's truth is, and where a change to it is proposed:
 * - `spec-pr`: its spec PR is open (from a branch of this repository): the PR's head is the
 *   spec the plan issues were synced from, and a proposal is a commit on that branch;
 * - `default`: the spec PR was merged (or is not known): the default branch holds the spec,
 *   and a proposal goes to the spec's proposals PR (graphBranch) against it.
 */
export type SpecPlace = { kind: 'spec-pr'; pull: number; branch: string } | { kind: 'default'; branch: string };

export interface SpecSource {
  place: SpecPlace;
  /** Repository path of the spec directory. */
  specPath: string;
  spec: Spec;
  files: SpecFile[];
}

const decoder = new TextDecoder();

/** A spec file's text, by its path in the spec directory. */
export function specFileText(source: SpecSource, path: string): string | undefined {
  const file = source.files.find((f) => f.path === path);
  return file ? decoder.decode(file.bytes) : undefined;
}

/**
 * The spec directory a plan issue's body links to (`**Spec** [id title](<repo>/blob/<ref>/<dir>/SPEC.md)`,
 * desiredIssue): the part of the link from the specs root on, so that a branch name with
 * slashes does not matter. Undefined when the body has no such link under the specs root.
 */
export function specPathFromBody(body: string | null | undefined, specsRoot: string): string | undefined {
  const link = /\*\*Spec\*\* \[.*?\]\((\S+?)\/SPEC\.md\)/.exec(body ?? '')?.[1];
  const root = normalizeRepoPath(specsRoot).replace(/\/+$/, '');
  if (link === undefined || root === '') return undefined;
  const at = link.indexOf(`/${root}/`);
  return at === -1 ? undefined : link.slice(at + 1);
}

/** Where the spec is (specPlace) and what it says there, read through the gateway; undefined when it is not (any more) a valid spec of that id. */
export async function readSpecSource(
  context: Context,
  github: Gateway,
  marker: ParsedMarker,
  body: string | null | undefined,
  defaultBranch: string,
): Promise<SpecSource | undefined> {
  const { config } = await readConfig(context);
  const specPath = specPathFromBody(body, config.specs_root);
  if (specPath === undefined) return undefined;
  const place = await specPlace(github, marker.pr, defaultBranch);
  return readSpecAt(github, place, specPath, marker.spec);
}

/** The spec of id `specId` in directory `specPath` on the place's branch. */
export async function readSpecAt(github: Gateway, place: SpecPlace, specPath: string, specId: string): Promise<SpecSource | undefined> {
  const slash = specPath.lastIndexOf('/');
  const entries = await github.directory(specPath.slice(0, slash), place.branch);
  const dir = entries?.find((e) => e.type === 'dir' && e.name === specPath.slice(slash + 1));
  if (!dir) return undefined;
  const { files, refused } = await readSpecFiles(github, dir.sha);
  if (refused) return undefined;
  const loaded = loadSpec(files, PLAN_READING);
  if (!loaded.valid || loaded.spec?.id !== specId) return undefined;
  return { place, specPath, spec: loaded.spec, files };
}

/** The spec PR the plan issue records, when open and from this repository; else the branch it merged into, or the default branch. */
async function specPlace(github: Gateway, pull: number | undefined, defaultBranch: string): Promise<SpecPlace> {
  if (pull === undefined) return { kind: 'default', branch: defaultBranch };
  const pr = await github.pullRequest(pull);
  if (pr.state === 'open' && pr.headRepo === pr.baseRepo) return { kind: 'spec-pr', pull, branch: pr.headRef };
  // Merged: the branch it went into holds the spec.
  if (pr.merged) return { kind: 'default', branch: pr.baseRef };
  return { kind: 'default', branch: defaultBranch };
}
