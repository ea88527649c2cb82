/** The comment left on a plan's issue when its plan leaves the spec, just before the issue is closed. */
export function removalNote(specId: string, planId: string, pull: number): string {
  return [
    `<!-- harness:removed ${specId}/${planId} -->`,
    `Plan ${planId} is no longer in spec ${specId} (changed in #${pull}), so harness closes this issue as not planned.`,
    'It is closed, not deleted: its history stays here, and if the plan comes back to the spec, the next sync reopens this issue.',
  ].join('\n');
}
