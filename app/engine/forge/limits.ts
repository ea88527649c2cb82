/** GitHub rejects issue bodies over 65,536 characters ("body is too long"). */
export const ISSUE_BODY_LIMIT = 65_536;

/** List endpoints return at most 100 items a page. */
export const PAGE_SIZE = 100;

/** Sub-issues: GitHub docs, "you can add up to 100 sub-issues per parent issue". */
export const SUB_ISSUES_PER_PARENT = 100;

/**
 * Issue dependencies: GitHub links at most 50 issues to one issue in each relationship
 * (blocked by, blocking); the 51st is refused.
 */
export const DEPENDENCY_LINKS_PER_KIND = 50;
