// The file destination writer: appends NDJSON (or CSV) to a file under the file root, rotates it by size to
// <name>.1, <name>.2, … and fsyncs before a write resolves.
import { constants } from 'node:fs';
import { open, rename, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DELIVERED, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { DeliveryError } from '../../errors.js';
import { encodeBatch } from '../../output-format.js';
import type { FileTargetConfig } from './config.js';
import { resolveInsideRoot } from './safe-path.js';

/** One newline per record. */
export const FILE_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 10_000,
  maxBytes: 4 * 1024 * 1024,
  maxRecordBytes: 4 * 1024 * 1024 - 1,
  recordOverheadBytes: 1,
});

export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Rotated files kept: <name>.1 (newest) to <name>.<maxFiles> (oldest); an older one is overwritten. */
export const DEFAULT_MAX_FILES = 10;

const OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

export interface FileWriterOptions {
  readonly root: string;
  readonly maxFileBytes?: number;
  readonly maxFiles?: number;
  readonly limits?: Partial<WriterLimits>;
}

export class FileWriter implements DestinationWriter {
  readonly kind = 'file';
  readonly limits: WriterLimits;
  private readonly maxFileBytes: number;
  private readonly maxFiles: number;
  /** The resolved path of the open file; resolved again (and re-checked) at every open. */
  private path: string | undefined;
  private handle: FileHandle | undefined;
  private size = 0;
  private inode = 0;
  private closed = false;
  // Writes, rotation and close run one at a time, in call order.
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: FileTargetConfig,
    private readonly opts: FileWriterOptions,
  ) {
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.maxFiles = Math.max(1, opts.maxFiles ?? DEFAULT_MAX_FILES);
    this.limits = { ...FILE_LIMITS, ...opts.limits };
  }

  connect(): Promise<void> {
    return this.serial(() => this.ensureOpen());
  }

  write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    return this.serial(async () => {
      if (batch.length === 0) return DELIVERED;
      const { bodies, tooLarge } = encodeBatch(batch, this.config.outputType ?? 'ndjson', 'none', { bytes: this.limits.maxBytes });
      const failed: ItemFailure[] = [...tooLarge];
      for (const [i, body] of bodies.entries()) {
        try {
          await this.append(body.bytes);
        } catch (err) {
          // Nothing appended yet: the whole write failed. Otherwise the tables before were delivered.
          if (i === 0 && tooLarge.length === 0) throw err;
          const error = toFileError(err);
          for (const rest of bodies.slice(i)) for (const item of rest.items) failed.push({ item, error });
          break;
        }
      }
      return failed.length === 0 ? DELIVERED : { failed };
    });
  }

  /** Appends one body and fsyncs, rotating first when it would take the file past its size. */
  private async append(data: Buffer): Promise<void> {
    try {
      await this.ensureOpen();
      if (this.size > 0 && this.size + data.length > this.maxFileBytes) await this.rotate();
    } catch (err) {
      throw toFileError(err);
    }
    const handle = this.handle as FileHandle;
    const before = this.size;
    try {
      let written = 0;
      while (written < data.length) written += (await handle.write(data, written, data.length - written)).bytesWritten;
      await handle.sync();
    } catch (err) {
      // Cut off a torn tail so the retried batch does not follow half a line.
      await handle.truncate(before).catch(() => undefined);
      await this.closeHandle();
      throw toFileError(err);
    }
    this.size += data.length;
  }

  healthcheck(): Promise<void> {
    return this.serial(async () => {
      try {
        await this.ensureOpen();
      } catch (err) {
        throw new DeliveryError('DESTINATION_UNHEALTHY', `The file cannot be opened: ${toFileError(err).message}`, { cause: err });
      }
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return this.serial(() => this.closeHandle(), true);
  }

  private serial<T>(task: () => Promise<T>, evenIfClosed = false): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.closed && !evenIfClosed) throw new DeliveryError('WRITER_CLOSED', 'The file writer is closed.');
      return task();
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  // Reopens when the file was moved or deleted behind our back (an outside log rotation), so writes
  // land in the file readers look at rather than in an unlinked inode.
  private async ensureOpen(): Promise<void> {
    if (this.handle !== undefined && this.path !== undefined) {
      const current = await stat(this.path).catch(() => undefined);
      if (current?.ino === this.inode) return;
      await this.closeHandle();
    }
    // Directories may have been swapped for symlinks since the last open; check the whole path again.
    this.path = await resolveInsideRoot(this.opts.root, this.config.path);
    let handle: FileHandle;
    try {
      handle = await open(this.path, OPEN_FLAGS, 0o644);
    } catch (err) {
      throw toFileError(err);
    }
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      throw new DeliveryError('INVALID_DESTINATION_CONFIG', 'The file path names something that is not a regular file.');
    }
    this.handle = handle;
    this.size = st.size;
    this.inode = st.ino;
    if (st.size === 0) await syncDirectory(dirname(this.path));
  }

  private async rotate(): Promise<void> {
    const path = this.path as string;
    await this.closeHandle();
    for (let i = this.maxFiles - 1; i >= 1; i--) await renameIfExists(`${path}.${i}`, `${path}.${i + 1}`);
    await renameIfExists(path, `${path}.1`);
    // The renames are durable only once the directory is synced.
    await syncDirectory(dirname(path));
    await this.ensureOpen();
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle !== undefined) await handle.close().catch(() => undefined);
  }
}

async function renameIfExists(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw toFileError(err);
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function toFileError(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') {
    return new DeliveryError('INVALID_DESTINATION_CONFIG', 'The file path is a symbolic link, which file destinations do not follow.', { cause: err });
  }
  // Disk full, permissions, a vanished mount: an operator can fix these, so the write is retried.
  return new DeliveryError('WRITE_FAILED', `Writing the file failed (${code ?? 'unknown error'}).`, { cause: err });
}
