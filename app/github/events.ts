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
      'a plan PR merged closes its plan issue and starts a scheduling round.',
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
  workflow_run: {
    actions: ['completed'],
    why: 'The worker workflow finishing: the plan is verified, failed, or waiting at a checkpoint; then a scheduling round.',
  },
} as const satisfies Record<string, { actions: readonly string[]; why: string }>;

export type AppEvent = keyof typeof APP_EVENTS;

/** The event names in `app.yml`'s order (sorted, so that a diff of the manifest stays small). */
export const APP_EVENT_NAMES = (Object.keys(APP_EVENTS) as AppEvent[]).sort();
