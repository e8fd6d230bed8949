// Keeps file destinations inside their root: lexical checks at config time, symlink checks at open time.
import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { DeliveryError } from '../../errors.js';

/** NAME_MAX of Linux file systems (ext4, xfs): a longer name fails every open with ENAMETOOLONG. */
const MAX_NAME_BYTES = 255;
/** The file's own name leaves room for the rotated names, <name>.1 to <name>.9999. */
const MAX_FILE_NAME_BYTES = MAX_NAME_BYTES - '.9999'.length;

/** Why `path` cannot name a file under the root (a sentence ending), or undefined when it can. */
export function relativePathProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'must not contain a NUL character.';
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) return 'must be relative to the file root.';
  const norm = normalize(path);
  if (norm === '.' || norm.endsWith(sep) || path.endsWith('/')) return 'must name a file, not a directory.';
  if (norm === '..' || norm.startsWith(`..${sep}`)) return 'must not point outside the file root.';
  const parts = norm.split(sep);
  if (parts.includes('..')) return 'must not point outside the file root.';
  if (parts.slice(0, -1).some((p) => Buffer.byteLength(p) > MAX_NAME_BYTES)) return `must not have a directory name over ${MAX_NAME_BYTES} bytes.`;
  if (Buffer.byteLength(parts[parts.length - 1] as string) > MAX_FILE_NAME_BYTES) {
    return `must not have a file name over ${MAX_FILE_NAME_BYTES} bytes (rotation adds .<n> to it).`;
  }
  return undefined;
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Creates the file's parent directories one at a time and returns the file's absolute path. Each
 * directory is resolved through its symlinks and must stay under the real root before anything is
 * created inside it. The file itself is opened with O_NOFOLLOW, so a symlink in its place fails.
 */
export async function resolveInsideRoot(root: string, path: string): Promise<string> {
  const problem = relativePathProblem(path);
  if (problem !== undefined) throw new DeliveryError('INVALID_DESTINATION_CONFIG', `The file path ${problem}`);
  const realRoot = await realpath(root);
  const target = resolve(realRoot, normalize(path));
  if (!inside(realRoot, target)) throw new DeliveryError('INVALID_DESTINATION_CONFIG', 'The file path points outside the file root.');
  let current = realRoot;
  for (const part of relative(realRoot, dirname(target)).split(sep).filter((p) => p !== '')) {
    const next = join(current, part);
    try {
      await mkdir(next);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    current = await realpath(next);
    if (!inside(realRoot, current)) {
      throw new DeliveryError('INVALID_DESTINATION_CONFIG', 'The file path leads outside the file root through a symbolic link.');
    }
  }
  return join(current, basename(target));
}
