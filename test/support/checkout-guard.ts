// The suite leaves the checkout as it found it: the summary reporter notes what `git status` shows
// before the run and counts a failure when a test wrote a tracked file or a file git does not ignore
// (a test's output belongs under an ignored folder such as .local/).
import { execFileSync } from 'node:child_process';

/** `git status` entries, every untracked file on its own; null outside a git checkout. */
export function checkoutStatus(cwd: string): Set<string> | null {
  try {
    const out = execFileSync('git', ['status', '--porcelain=v1', '--untracked-files=all', '-z'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return new Set(out.split('\0').filter((l) => l !== ''));
  } catch {
    return null;
  }
}

/**
 * What `after` shows that `before` did not: the files the run wrote or changed, but for those under
 * `asked` (a folder the run was asked to write, as `npm run console:screenshots` asks for docs/console/).
 */
export function dirtiedBetween(before: ReadonlySet<string>, after: ReadonlySet<string>, asked?: string): string[] {
  const folder = asked?.replace(/\/*$/, '/');
  // An entry is "XY path": two status letters and a space.
  return [...after].filter((entry) => !before.has(entry) && (folder === undefined || !entry.slice(3).startsWith(folder))).sort();
}
