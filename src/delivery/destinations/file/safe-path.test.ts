import { mkdtemp, mkdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { relativePathProblem, resolveInsideRoot } from './safe-path.js';

describe('file path safety', () => {
  let base: string;
  let root: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'edge-safe-path-'));
    root = join(base, 'root');
    await mkdir(root);
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('should accept plain relative paths, nested ones included', () => {
    for (const p of ['events.ndjson', 'a/b/c.ndjson', './x.ndjson', 'a/../b.ndjson']) expect(relativePathProblem(p)).toBeUndefined();
  });

  it('should reject absolute paths, escapes, directories and NUL', () => {
    for (const p of ['/etc/passwd', '../x', 'a/../../x', '..', '.', 'dir/', 'C:\\x', 'a\0b']) {
      expect(relativePathProblem(p), p).toBeDefined();
    }
  });

  it('should reject a directory name over 255 bytes and a file name over 250, leaving room for the rotated names', () => {
    expect(relativePathProblem(`${'d'.repeat(256)}/x.ndjson`)).toMatch(/255 bytes/);
    expect(relativePathProblem(`a/${'f'.repeat(251)}`)).toMatch(/250 bytes/);
    expect(relativePathProblem(`${'d'.repeat(255)}/${'f'.repeat(250)}`)).toBeUndefined();
  });

  it('should create the parent directories inside the root', async () => {
    const path = await resolveInsideRoot(root, 'tenant/a/events.ndjson');
    expect(path.startsWith(root)).toBe(true);
    expect(path.endsWith(join('tenant', 'a', 'events.ndjson'))).toBe(true);
  });

  it('should refuse a directory symlink that leads outside the root, and create nothing out there', async () => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    await symlink(outside, join(root, 'link'));
    await expect(resolveInsideRoot(root, 'link/new/events.ndjson')).rejects.toMatchObject({ code: 'INVALID_DESTINATION_CONFIG' });
    await expect(rm(join(outside, 'new'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('should allow a symlink that stays inside the root', async () => {
    await mkdir(join(root, 'real'));
    await symlink(join(root, 'real'), join(root, 'alias'));
    const path = await resolveInsideRoot(root, 'alias/events.ndjson');
    expect(path).toBe(join(root, 'real', 'events.ndjson'));
  });
});
