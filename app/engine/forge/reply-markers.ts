/**
 * The hidden lines at the end of the App's answers to commands. `harness:reply <comment id>`
 * says the command in that comment was handled to the end: the 👀 reaction only says it was
 * seen, so a redelivery after a crash can tell a command finished from one cut short.
 * `harness:refused <login>` says that login was already told no in this thread: a bot, or a
 * person without the role, is answered once per thread, never once per line or per retry,
 * and two bots can never keep each other answering.
 */

export function replyMarker(commentId: number): string {
  return `<!-- harness:reply ${commentId} -->`;
}

export function refusedMarker(login: string): string {
  return `<!-- harness:refused ${login} -->`;
}

/** Does this body close with the reply marker of `commentId`? */
export function repliesTo(body: string, commentId: number): boolean {
  return body.trimEnd().endsWith(replyMarker(commentId));
}

/** Does this body carry the refusal marker of `login` (on a line of its own)? */
export function refuses(body: string, login: string): boolean {
  return body.split('\n').some((line) => line.trim() === refusedMarker(login));
}

/** The answer with its markers appended, after a blank line (GitHub renders none of them). */
export function withMarkers(text: string, markers: readonly string[]): string {
  return markers.length === 0 ? text : `${text}\n\n${markers.join('\n')}`;
}
