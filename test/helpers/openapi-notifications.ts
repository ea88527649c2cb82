/**
 * The endpoints GitHub's REST description marks as triggering notifications ("Creating content
 * too quickly using this endpoint may result in secondary rate limiting"), read from every copy
 * of @octokit/openapi-types installed: each copy is a version of GitHub's OpenAPI description.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../node_modules/@octokit/', import.meta.url).pathname;

/** One types.d.ts per version installed. */
function copies(): string[] {
  const byVersion = new Map<string, string>();
  const dirs = [join(ROOT, 'openapi-types'), ...readdirSync(ROOT).map((pkg) => join(ROOT, pkg, 'node_modules', '@octokit', 'openapi-types'))];
  for (const dir of dirs) {
    if (!existsSync(join(dir, 'types.d.ts'))) continue;
    const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    if (!byVersion.has(version)) byVersion.set(version, join(dir, 'types.d.ts'));
  }
  return [...byVersion.values()];
}

/** The paths @octokit/plugin-throttling spaces as notification-triggering (its generated list). */
export function throttlingNotificationPaths(): string[] {
  const text = readFileSync(join(ROOT, 'plugin-throttling', 'dist-src', 'generated', 'triggers-notification-paths.js'), 'utf8');
  return [...text.matchAll(/"(\/[^"]+)"/g)].map((m) => m[1]!);
}

/** [method, path template] of every marked operation, in any installed copy. */
export function notificationEndpoints(): [string, string][] {
  const found = new Map<string, [string, string]>();
  for (const file of copies()) {
    const lines = readFileSync(file, 'utf8').split('\n');
    let path: string | undefined;
    for (let i = 0; i < lines.length; i++) {
      const p = /^ {2}"(\/[^"]+)": \{/.exec(lines[i]!);
      if (p) path = p[1];
      if (!lines[i]!.includes('triggers [notifications]') || !path) continue;
      // The operation the comment describes: the next `<method>: operations[...]` line.
      for (let j = i; j < Math.min(lines.length, i + 120); j++) {
        const op = /^\s+(get|put|post|patch|delete): operations\[/.exec(lines[j]!);
        if (op) {
          const method = op[1]!.toUpperCase();
          found.set(`${method} ${path}`, [method, path]);
          break;
        }
      }
    }
  }
  return [...found.values()];
}

/** A concrete URL for a path template: ids as numbers, a commit as a sha, names as names. */
export function sampleUrl(template: string): string {
  return template
    .replace('{owner}', 'o')
    .replace('{repo}', 'r')
    .replace(/\{commit_sha\}/g, '6dcb09b5b57875f334f61aebed695e2e4193db5e')
    .replace(/\{(issue_number|pull_number|comment_id|invitation_id|team_id|discussion_number|issue_field_id)\}/g, '7')
    .replace(/\{[a-z_]+\}/g, 'name');
}
