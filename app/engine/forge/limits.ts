/** GitHub rejects issue bodies over 65,536 characters ("body is too long"). */
export const ISSUE_BODY_LIMIT = 65_536;
