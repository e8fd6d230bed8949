import { mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileWriter } from './file-writer.js';
import { ndjson } from '../../output-format.js';
import { item } from '../../../../test/unit/delivery/fakes.js';

describe('file writer', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'edge-file-writer-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('should append each payload as one NDJSON line', async () => {
    const w = new FileWriter({ path: 'out/events.ndjson' }, { root });
    const items = [item(10), item(12)];
    await w.write(items);
    await w.write([item(5)]);
    await w.close();
    const lines = (await readFile(join(root, 'out', 'events.ndjson'), 'utf8')).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(lines.slice(0, 2)).toEqual(items.map((i) => i.payload.toString()));
    expect(ndjson(items).length).toBe(10 + 12 + 2);
  });

  it('should rotate by size to .1, .2 and drop files beyond the limit', async () => {
    // Each batch is 100 bytes on disk; a file takes at most 250, so two batches per file.
    const w = new FileWriter({ path: 'events.ndjson' }, { root, maxFileBytes: 250, maxFiles: 2 });
    const batches = Array.from({ length: 7 }, () => [item(99)]);
    for (const b of batches) await w.write(b);
    await w.close();
    expect((await readdir(root)).sort()).toEqual(['events.ndjson', 'events.ndjson.1', 'events.ndjson.2']);
    const read = async (name: string) => (await readFile(join(root, name), 'utf8')).trim().split('\n');
    const ids = (bs: typeof batches) => bs.map((b) => b[0]?.payload.toString());
    expect(await read('events.ndjson')).toEqual(ids(batches.slice(6)));
    expect(await read('events.ndjson.1')).toEqual(ids(batches.slice(4, 6)));
    expect(await read('events.ndjson.2')).toEqual(ids(batches.slice(2, 4)));
  });

  it('should continue an existing file and count its size toward rotation', async () => {
    await writeFile(join(root, 'events.ndjson'), 'x'.repeat(200) + '\n');
    const w = new FileWriter({ path: 'events.ndjson' }, { root, maxFileBytes: 250 });
    await w.write([item(99)]);
    await w.close();
    expect((await readFile(join(root, 'events.ndjson.1'), 'utf8')).length).toBe(201);
    expect((await readFile(join(root, 'events.ndjson'), 'utf8')).length).toBe(100);
  });

  it('should reopen the file when it was moved away by an outside rotation', async () => {
    const w = new FileWriter({ path: 'events.ndjson' }, { root });
    const first = item(10);
    const second = item(10);
    await w.write([first]);
    await rm(join(root, 'events.ndjson'));
    await w.write([second]);
    await w.close();
    expect(await readFile(join(root, 'events.ndjson'), 'utf8')).toBe(`${second.payload.toString()}\n`);
  });

  it('should not follow a symlink in the file position and report it as a config error', async () => {
    await writeFile(join(root, 'target'), '');
    await symlink(join(root, 'target'), join(root, 'events.ndjson'));
    const w = new FileWriter({ path: 'events.ndjson' }, { root });
    await expect(w.write([item()])).rejects.toMatchObject({ code: 'INVALID_DESTINATION_CONFIG', retryable: false });
    await expect(w.healthcheck()).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY' });
  });

  it('should refuse writes after close', async () => {
    const w = new FileWriter({ path: 'e.ndjson' }, { root });
    await w.connect();
    await w.close();
    await w.close();
    await expect(w.write([item()])).rejects.toMatchObject({ code: 'WRITER_CLOSED' });
  });
});
