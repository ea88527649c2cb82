/**
 * GitHub's limits, each with its source, so that no size or pace in the app is a bare number.
 */

/** Check run `output.summary` and `output.text`: "maximum of 65535 characters" (REST: create a check run). */
export const CHECK_RUN_TEXT_MAX = 65_535;

/** Check run annotations: "limited to 50 annotations per request"; more go in further updates. */
export const CHECK_RUN_ANNOTATIONS_PER_REQUEST = 50;

/** Issue and comment bodies: see ISSUE_BODY_LIMIT (the engine renders bodies within it). */
export { ISSUE_BODY_LIMIT } from '../engine/forge/limits.js';

/** List endpoints return at most 100 items a page. */
export { PAGE_SIZE } from '../engine/forge/limits.js';

/**
 * Content-creating requests: GitHub's secondary rate limits ask for no more than 80 a minute
 * and 500 an hour, one at a time, with at least a second between writes. Probot's
 * throttling plugin already spaces writes a second apart (its "write" group); this is the
 * hourly budget a single sync plans against.
 */
export const CONTENT_WRITES_PER_MINUTE = 80;
export const CONTENT_WRITES_PER_HOUR = 500;

/** Check run names are at most 255 characters in practice; ours are short. */
export const CHECK_RUN_NAME_MAX = 255;
