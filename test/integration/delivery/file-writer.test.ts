import { mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileWriter } from '../../../src/delivery/destinations/file/file-writer.js';
import type { Envelope } from '../../../src/events/envelope.js';
import { describeWriterContract } from './writer-contract.js';

describeWriterContract('file', async () => {
  const root = await mkdtemp(join(tmpdir(), 'edge-file-contract-'));
  const dir = join(root, 'tenant');
  return {
    // A small rotation size, so the contract's batches also cross file boundaries.
    createWriter: async () => new FileWriter({ path: 'tenant/events.ndjson' }, { root, maxFileBytes: 2 * 1024 * 1024, maxFiles: 50 }),
    readBack: async () => {
      const names = (await readdir(dir)).filter((n) => n.startsWith('events.ndjson'));
      const events: Envelope[] = [];
      for (const name of names) {
        const text = await readFile(join(dir, name), 'utf8');
        for (const line of text.split('\n')) if (line !== '') events.push(JSON.parse(line) as Envelope);
      }
      return events;
    },
    // The directory vanishes under the writer (an unmounted volume) and a plain file takes its name,
    // so opens fail until it comes back.
    disrupt: async () => {
      await rename(dir, `${dir}.away`);
      await writeFile(dir, 'not a directory');
    },
    restore: async () => {
      await rm(dir);
      await rename(`${dir}.away`, dir);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});
