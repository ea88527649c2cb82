import type { Context } from 'probot';
import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import { KNOWLEDGE_CHECK, knowledgeCheckReport, type CheckedFile } from '../../engine/knowledge/documents/knowledge-check.js';
import { makeSafe } from '../../machine/content-safety.js';
import { appGateway } from '../app-gateway.js';
import { loadConfig } from '../config.js';
import { reportSpecCheck } from '../spec-pr/report-spec-check.js';
import { appSafety } from './app-safety.js';
import { memoryOf } from '../app-memory.js';

/** Files of a knowledge PR the check reads, at most: a knowledge PR is a handful of documents. */
export const MAX_CHECKED_FILES = 200;
const decoder = new TextDecoder();

export type KnowledgePullContext = Context<'pull_request.opened' | 'pull_request.synchronize' | 'pull_request.reopened'>;

/**
 * The `harness / knowledge` check run on every knowledge pull request (a head branch under
 * `harness/knowledge/`, in this repository): each changed knowledge file against its format and
 * template and the content-safety pass (engine/knowledge/documents/knowledge-check.ts), each problem an
 * annotation on its file and line, so a person who edits the PR sees at once what a merge would
 * let in. The store's files are `.harness/knowledge/…`, or the whole repository when it is the
 * knowledge repository (`knowledge.repository` names it). On the head commit, once: a redelivery
 * finds the run there and does nothing.
 */
export async function onKnowledgePullRequest(context: KnowledgePullContext): Promise<void> {
  const pr = context.payload.pull_request;
  if (!pr.head.ref.startsWith('harness/knowledge/')) return;
  if (pr.head.repo?.full_name !== context.payload.repository.full_name) return;
  const github = appGateway(context);
  if ((await github.checkRuns(pr.head.sha, KNOWLEDGE_CHECK)).length > 0) return;
  const { config } = await loadConfig(context);
  const wholeRepository = config.knowledge.repository?.toLowerCase() === context.payload.repository.full_name.toLowerCase();
  const entries = await github.pullRequestFileEntries(pr.number);
  const paths = entries.map((e) => e.path);
  const safety = appSafety(process.env, process.cwd());
  const files: CheckedFile[] = [];
  for (const entry of entries.slice(0, MAX_CHECKED_FILES)) {
    const path = entry.path;
    const storePath = path.startsWith(`${KNOWLEDGE_ROOT}/`) ? path.slice(KNOWLEDGE_ROOT.length + 1) : wholeRepository ? path : undefined;
    if (storePath === undefined) continue;
    // Removed by the PR: nothing to check. The rest by their blob: a push that adds one signal to a PR of hundreds reads one.
    if (entry.sha === undefined) continue;
    const text = decoder.decode(await github.blob(entry.sha));
    // A blob's redactions are the same every time it is scanned: a signals PR of hundreds of files scans only what a push added.
    const scanned = memoryOf(context).scannedBlobs;
    let redactions = scanned.get(entry.sha);
    if (!redactions) {
      redactions = (await makeSafe(text, safety)).redactions;
      scanned.set(entry.sha, redactions);
    }
    files.push({ path, storePath, text, redactions });
  }
  const report = knowledgeCheckReport(files);
  const skipped = paths.length > MAX_CHECKED_FILES ? ` Only the first ${MAX_CHECKED_FILES} of its ${paths.length} files were checked.` : '';
  await reportSpecCheck(
    github,
    { headSha: pr.head.sha, externalId: `knowledge/${pr.number}` },
    {
      conclusion: report.conclusion,
      title: report.title,
      summary: `${report.summary}${skipped}`,
      annotations: report.annotations.map((a) => ({
        path: a.path,
        start_line: a.line,
        end_line: a.line,
        annotation_level: a.level,
        title: a.title,
        message: a.message,
      })),
    },
    KNOWLEDGE_CHECK,
  );
  context.log.info(`#${pr.number}: ${KNOWLEDGE_CHECK} ${report.conclusion} (${report.annotations.length} annotations)`);
}
