/**
 * Whose markers count. A marker (`<!-- harness:checkpoint … -->`, `<!-- harness:status … -->`,
 * `<!-- harness:answer … -->`) is only text: anyone who may comment may type one, and so may
 * any other bot. Harness trusts a marker only in a comment written by its own identity: the
 * App's bot, and for a checkpoint question also GitHub Actions' bot, whose token a worker
 * without the App's posts its questions with.
 */

/** The bot a worker posts as when it holds only GITHUB_TOKEN. */
export const ACTIONS_BOT = 'github-actions[bot]';

/** The App's bot login for its slug, as GitHub names it. */
export function appBotLogin(slug: string): string {
  return `${slug}[bot]`;
}

export interface Authored {
  author: string;
  authorType: string;
}

/** Did harness itself write this comment: a Bot whose login is one of harness's own? */
export function writtenBy(comment: Authored, logins: readonly string[]): boolean {
  return comment.authorType === 'Bot' && logins.includes(comment.author);
}

/** The logins a checkpoint question may come from: the App, and the worker when it ran with GITHUB_TOKEN. */
export function questionAuthors(appLogin: string | undefined): string[] {
  return appLogin === undefined ? [ACTIONS_BOT] : [appLogin, ACTIONS_BOT];
}
