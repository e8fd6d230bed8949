// The suite's own habit (test/support/checkout-guard.ts): a run that writes a tracked file or a file git
// does not ignore is caught; one that writes under an ignored folder is not. On a real git repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutStatus, dirtiedBetween } from '../../support/checkout-guard.js';

let repo: string;
function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=suite@example.com', '-c', 'user.name=suite', ...args], { cwd: repo, stdio: 'ignore' });
}
function checkout(): string {
  repo = mkdtempSync(join(tmpdir(), 'checkout-guard-'));
  git('init', '-q');
  writeFileSync(join(repo, '.gitignore'), '.local/\n');
  mkdirSync(join(repo, 'docs', 'console'), { recursive: true });
  writeFileSync(join(repo, 'docs', 'console', 'live.png'), 'old');
  writeFileSync(join(repo, 'README.md'), 'readme');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  return repo;
}
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('the checkout guard', () => {
  it('should name a changed tracked file and a new file git does not ignore, and not one under an ignored folder', () => {
    const dir = checkout();
    // Dirty before the run: someone's edit in progress, which is not the run's doing.
    writeFileSync(join(dir, 'README.md'), 'being edited');
    const before = checkoutStatus(dir);
    expect(before).not.toBeNull();
    writeFileSync(join(dir, 'docs', 'console', 'live.png'), 'new');
    mkdirSync(join(dir, 'test-output'));
    writeFileSync(join(dir, 'test-output', 'shot.png'), 'x');
    mkdirSync(join(dir, '.local', 'test-logs'), { recursive: true });
    writeFileSync(join(dir, '.local', 'test-logs', 'run.log'), 'x');
    const after = checkoutStatus(dir);
    expect(dirtiedBetween(before as Set<string>, after as Set<string>)).toEqual([' M docs/console/live.png', '?? test-output/shot.png']);
    // The folder a run was asked to refresh is its to write.
    expect(dirtiedBetween(before as Set<string>, after as Set<string>, 'docs/console')).toEqual(['?? test-output/shot.png']);
  });

  it('should see nothing outside a git checkout', () => {
    repo = mkdtempSync(join(tmpdir(), 'not-a-checkout-'));
    expect(checkoutStatus(repo)).toBeNull();
  });
});
