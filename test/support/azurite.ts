// Azurite's blob service (the Azure Storage emulator, npm `azurite`) for the azure_blob tests: started by
// the test on a free 127.0.0.1 port with a temporary workspace, stopped and started again on the same
// port and data for outages, and read back with the Azure SDK's own client (@azure/storage-blob).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import type { Envelope } from '../../src/events/envelope.js';

/** The emulator's well-known development account and key (Azurite's README, "Default Storage Account"). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

const BIN = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'azurite-blob');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface StoredBlob {
  readonly name: string;
  readonly contentType: string | undefined;
  readonly blobType: string | undefined;
  readonly raw: Buffer;
  /** Gunzipped where the name ends in .gz. */
  readonly text: string;
}

export class Azurite {
  private child: ChildProcess | undefined;
  private readonly location = mkdtempSync(join(tmpdir(), 'edge-events-azurite-'));
  readonly service: BlobServiceClient;

  private constructor(readonly port: number) {
    this.service = new BlobServiceClient(this.accountUrl, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
  }

  /** The account's blob endpoint, path-style as the emulator serves it. */
  get accountUrl(): string {
    return `http://127.0.0.1:${this.port}/${AZURITE_ACCOUNT}`;
  }

  static async start(): Promise<Azurite> {
    const a = new Azurite(await freePort());
    await a.resume();
    return a;
  }

  /** Starts the emulator (again) on its port and workspace; resolves once it listens. Running already: nothing to do. */
  async resume(): Promise<void> {
    if (this.child !== undefined && this.child.exitCode === null) return;
    const child = spawn(BIN, ['--blobHost', '127.0.0.1', '--blobPort', String(this.port), '--location', this.location, '--silent', '--disableTelemetry', '--skipApiVersionCheck'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Azurite did not start within 60 s: ${output}`)), 60_000);
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('successfully listen')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', seen);
      child.stderr?.on('data', seen);
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (this.child === child) this.child = undefined;
        reject(new Error(`Azurite exited with ${code}: ${output}`));
      });
    });
  }

  /** Stops the emulator; its data stays in the workspace for resume(). */
  async pause(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // SIGTERM: the emulator saves its metadata as it stops (a SIGKILL loses what it had not saved yet).
    child.kill('SIGTERM');
    await exited;
  }

  async stop(): Promise<void> {
    await this.pause();
    rmSync(this.location, { recursive: true, force: true });
  }

  async createContainer(name: string): Promise<void> {
    await this.service.getContainerClient(name).create();
  }

  /** Every blob of the container, in name order. */
  async blobs(container: string): Promise<StoredBlob[]> {
    const client = this.service.getContainerClient(container);
    const out: StoredBlob[] = [];
    for await (const b of client.listBlobsFlat()) {
      const raw = await client.getBlobClient(b.name).downloadToBuffer();
      out.push({ name: b.name, contentType: b.properties.contentType, blobType: b.properties.blobType, raw, text: (b.name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8') });
    }
    return out;
  }

  /** The events of the container's NDJSON blobs, duplicates kept. */
  async events(container: string): Promise<Envelope[]> {
    const blobs = (await this.blobs(container)).filter((b) => /\.ndjson(\.gz)?$/.test(b.name));
    return blobs.flatMap((b) => b.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Envelope));
  }

  /** Polls until at least `atLeast` distinct events arrived, or returns what there is after `ms`. */
  async eventsAtLeast(container: string, atLeast: number, ms = 15_000): Promise<Envelope[]> {
    const deadline = Date.now() + ms;
    while (true) {
      const got = await this.events(container);
      if (new Set(got.map((e) => e.event_id)).size >= atLeast || Date.now() > deadline) return got;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
