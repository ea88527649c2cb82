import type { Context } from 'probot';

interface RepositoryPayload {
  repository?: { default_branch?: string; html_url?: string };
}

function repository(context: Context): NonNullable<RepositoryPayload['repository']> {
  const repo = (context.payload as RepositoryPayload).repository;
  if (!repo) throw new Error(`a ${context.name} event without a repository cannot start a scheduling round`);
  return repo;
}

/**
 * The branch a round starts plan branches from and dispatches the worker on, when the event
 * does not name the spec's base: the repository's default branch, from the payload (every
 * event a round starts on carries it), so that finding it costs no request. The worker
 * workflow must exist on that branch: `workflow_dispatch` runs the ref's copy of it.
 */
export function defaultBranch(context: Context): string {
  const branch = repository(context).default_branch;
  if (!branch) throw new Error(`the ${context.name} payload does not name the repository's default branch`);
  return branch;
}

/** https://github.com/<owner>/<repo>, for links built without a request. */
export function repositoryUrl(context: Context): string {
  const url = repository(context).html_url;
  if (!url) {
    const { owner, repo } = context.repo();
    return `https://github.com/${owner}/${repo}`;
  }
  return url;
}
