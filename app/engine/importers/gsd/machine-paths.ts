/**
 * GSD plans are written on someone's laptop: their `<verify>` commands say
 * `cd /Users/dana/code/ledger/server && pnpm test`. harness runs checks from the repository
 * root, on another machine, so the repository's own place on that laptop is found and cut
 * off: `cd server && pnpm test`. A path that cannot be placed in the repository is reported.
 */

const MACHINE_PATH = /(?:\/(?:Users|home)\/[^/\s'"`;&|<>(){}]+|\/root|[A-Za-z]:[\\/]Users[\\/][^\\/\s'"`;&|<>(){}]+)(?:[\\/][^\s'"`;&|<>(){}]*)?/g;

export function machinePaths(text: string): string[] {
  return [...text.matchAll(MACHINE_PATH)].map((m) => m[0].replace(/\\/g, '/').replace(/\/+$/, ''));
}

export interface MachineRoot {
  root: string;
  /** How it was found, for the report. */
  how: 'files' | 'cd' | 'common' | 'only';
}

const CD_TARGET = /(?:^|&&|;|\(|`)\s*cd\s+["']?((?:\/(?:Users|home)\/|\/root\b|[A-Za-z]:[\\/]Users[\\/])[^\s'"`;&|<>(){}]*)["']?\s*(?:&&|;)/gm;

/** The directories commands `cd` into on the author's machine before they run (`cd /Users/d/app && npm test`). */
export function cdTargets(text: string): string[] {
  return [...text.matchAll(CD_TARGET)].map((m) => m[1]!.replace(/\\/g, '/').replace(/\/+$/, ''));
}

/**
 * Where the repository was on the author's machine. `topDirs` are the first segments of the
 * paths plans modify (`server`, `src`): `/Users/d/ledger/server` with `server/…` modified puts
 * the root at `/Users/d/ledger`. Failing that, the longest directory every path shares, when
 * there are several; failing that, the one directory named.
 */
export function machineRoot(allPaths: readonly string[], topDirs: ReadonlySet<string>, cds: readonly string[] = []): MachineRoot | undefined {
  // GSD's own files on the author's machine (~/.claude/get-shit-done/…) are cited in plans, and are no part of the repository.
  const paths = allPaths.filter((p) => !/\/\.claude\//.test(p));
  if (paths.length === 0) return undefined;
  const votes = new Map<string, number>();
  for (const path of paths) {
    const parts = path.split('/');
    // The first two segments are the home directory itself ("", "Users", "dana"): never the root.
    for (let k = parts.length - 1; k >= 3; k--) {
      if (topDirs.has(parts[k]!)) {
        const root = parts.slice(0, k).join('/');
        votes.set(root, (votes.get(root) ?? 0) + 1);
        break;
      }
    }
  }
  if (votes.size > 0) return { root: [...votes].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length)[0]![0], how: 'files' };
  // The directory the project's commands cd into first, when most of them share it: the checkout itself.
  const cdCounts = new Map<string, number>();
  for (const cd of cds) cdCounts.set(cd, (cdCounts.get(cd) ?? 0) + 1);
  const [topCd] = [...cdCounts].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length);
  if (topCd && topCd[1] * 2 > cds.length && topCd[0].split('/').length > 3) return { root: topCd[0], how: 'cd' };
  const distinct = [...new Set(paths)];
  if (distinct.length > 1) {
    const common = distinct.map((p) => p.split('/')).reduce((acc, parts) => acc.slice(0, commonLength(acc, parts)));
    if (common.length > 3) return { root: common.join('/'), how: 'common' };
    return undefined;
  }
  return distinct[0]!.split('/').length > 3 ? { root: distinct[0]!, how: 'only' } : undefined;
}

function commonLength(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

export interface RewrittenCommand {
  command: string;
  /** Machine paths left in the command: it cannot run anywhere else. */
  foreign: string[];
}

/** The command with the repository's machine root cut off. */
export function rewriteMachinePaths(command: string, root: string | undefined): RewrittenCommand {
  const normalized = command.replace(MACHINE_PATH, (p) => p.replace(/\\/g, '/'));
  if (root === undefined) return { command: normalized, foreign: machinePaths(normalized) };
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let out = normalized
    // `cd <root> && x` is `x`; `cd <root>/server && x` is `cd server && x`.
    .replace(new RegExp(`(^|&&|;|\\|\\|)\\s*cd\\s+["']?${escaped}\\/?["']?\\s*(?:&&|;)\\s*`, 'g'), '$1 ')
    .replace(new RegExp(`${escaped}\\/`, 'g'), './')
    .replace(new RegExp(`${escaped}(?![\\w.-])`, 'g'), '.')
    .replace(/(^|&&|;)\s*cd\s+\.\/([^\s&;]+)/g, '$1 cd $2')
    .trim();
  out = out.replace(/^\s+/, '');
  return { command: out, foreign: machinePaths(out) };
}
