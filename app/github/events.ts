/**
 * The webhook events the App subscribes to, with the actions it acts on and why.
 *
 * One list for three places that must agree: the handlers wired in `app.ts`, the
 * `default_events` of `app.yml` (an App is only sent what it subscribes to, and each event
 * needs a permission, so an extra event is an extra grant), and the `on:` of
 * `templates/workflows/harness-app.yml` (the same app run by Actions). The packaging test
 * holds all three to it. The flow itself is in docs/github-flow.md.
 */
export const APP_EVENTS = {
  pull_request: {
    actions: ['opened', 'synchronize', 'reopened', 'closed'],
    why:
      'A spec PR opened, reopened or pushed to is validated (check run `harness / spec`) and its plans synced to issues; ' +
      "a plan PR merged closes its plan issue and starts a scheduling round; a spec's proposals PR (`harness/graph/<spec>`) merged syncs its plan issues from the merged spec; a push to a plan PR that changes a line a person commented on, " +
      "and a merged PR that reverts a plan PR, are `review` signals on the spec's signals PR.",
  },
  pull_request_review: {
    actions: ['submitted'],
    why: "A review requesting changes on a plan's pull request is a `review` signal on the spec's signals PR: what a person found that the checks did not.",
  },
  issue_comment: {
    actions: ['created'],
    why: '`/harness` slash commands, on issues and pull requests alike (GitHub sends PR conversation comments as issue comments).',
  },
  check_run: {
    actions: ['completed', 'requested_action', 'rerequested'],
    why:
      "The buttons on harness check runs (Approve, a decision's options, Abort, Retry) come back to the App that owns them; " +
      '"Re-run" on a plan check run dispatches the plan again; a plan check run completing starts a scheduling round.',
  },
  push: {
    actions: [],
    why: 'A commit on the default branch that reverts a plan\'s merge (`Revert "…"`, `This reverts commit <sha>.`) is a `review` signal on the spec\'s signals PR.',
  },
  workflow_run: {
    actions: ['completed'],
    why: 'The worker workflow finishing: the plan is verified, failed, or waiting at a checkpoint; then a scheduling round.',
  },
  issue_dependencies: {
    actions: ['blocked_by_added', 'blocked_by_removed', 'blocking_added', 'blocking_removed'],
    why: "A person marking one plan issue blocked by another (or unmarking it): a writer's change is proposed to the spec's depends_on, anyone else's put back (app/github/graph).",
    webhookOnly: true,
  },
  sub_issues: {
    actions: ['sub_issue_added', 'sub_issue_removed', 'parent_issue_added', 'parent_issue_removed'],
    why: 'A person moving a plan issue in the issue tree: under another plan issue of the spec it is a dependency change like the above; any other move is put back (app/github/graph).',
    webhookOnly: true,
  },
} as const satisfies Record<string, { actions: readonly string[]; why: string; webhookOnly?: true }>;

export type AppEvent = keyof typeof APP_EVENTS;

/** The event names in `app.yml`'s order (sorted, so that a diff of the manifest stays small). */
export const APP_EVENT_NAMES = (Object.keys(APP_EVENTS) as AppEvent[]).sort();

/**
 * The events an App run by Actions (`templates/workflows/harness-app.yml`) is started for: all
 * but those GitHub sends only to webhooks (`webhookOnly`: Actions has no trigger for issue
 * dependencies or sub-issues). There, a change to the issue graph is seen at the next sync of
 * the spec, which puts the spec's graph back.
 */
export const ACTIONS_EVENT_NAMES = APP_EVENT_NAMES.filter((name) => !('webhookOnly' in APP_EVENTS[name]));
