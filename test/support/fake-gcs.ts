// fake-gcs-server (a Cloud Storage emulator, the Go module github.com/fsouza/fake-gcs-server) for the gcs
// tests: built once with `go install` into .local/fake-gcs-server/<version>/ (`npm run gcs:fetch`, which
// CI runs; a test builds it when it is missing), started by the test on a free 127.0.0.1 port with an
// in-memory backend, and read back with Google's own client (@google-cloud/storage).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Storage } from '@google-cloud/storage';
import type { Envelope } from '../../src/events/envelope.js';

export const FAKE_GCS_VERSION = '1.52.2';
const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, '.local', 'fake-gcs-server', FAKE_GCS_VERSION);
const BIN = join(DIR, 'fake-gcs-server');

/** Builds the emulator into .local/ unless it is there; needs Go and the Go module proxy the first time. */
export function ensureFakeGcs(): string {
  if (existsSync(BIN)) return BIN;
  mkdirSync(DIR, { recursive: true });
  execFileSync('go', ['install', `github.com/fsouza/fake-gcs-server@v${FAKE_GCS_VERSION}`], { env: { ...process.env, GOBIN: DIR }, stdio: 'inherit' });
  return BIN;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class FakeGcs {
  readonly storage: Storage;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    this.storage = new Storage({ apiEndpoint: this.url, projectId: 'edge-events-test' });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<FakeGcs> {
    const bin = ensureFakeGcs();
    const port = await freePort();
    const child = spawn(bin, ['-scheme', 'http', '-host', '127.0.0.1', '-port', String(port), '-backend', 'memory', '-public-host', `127.0.0.1:${port}`, '-log-level', 'error'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 20_000;
    while (true) {
      if (child.exitCode !== null) throw new Error(`fake-gcs-server exited with ${child.exitCode}: ${output}`);
      const up = await fetch(`http://127.0.0.1:${port}/storage/v1/b`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) return new FakeGcs(child, port);
      if (Date.now() > deadline) throw new Error(`fake-gcs-server did not answer within 20 s: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }

  async createBucket(name: string): Promise<void> {
    await this.storage.createBucket(name);
  }

  /** Every object of the bucket: name, content type and bytes, gunzipped where the name ends in .gz. */
  async objects(bucket: string): Promise<{ name: string; contentType: string | undefined; raw: Buffer; text: string }[]> {
    const [files] = await this.storage.bucket(bucket).getFiles();
    const out = [];
    for (const f of files) {
      const [raw] = await f.download();
      out.push({ name: f.name, contentType: f.metadata.contentType, raw, text: (f.name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8') });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async events(bucket: string): Promise<Envelope[]> {
    const objects = (await this.objects(bucket)).filter((o) => /\.ndjson(\.gz)?$/.test(o.name));
    return objects.flatMap((o) => o.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Envelope));
  }

  async eventsAtLeast(bucket: string, atLeast: number, ms = 15_000): Promise<Envelope[]> {
    const deadline = Date.now() + ms;
    while (true) {
      const got = await this.events(bucket);
      if (new Set(got.map((e) => e.event_id)).size >= atLeast || Date.now() > deadline) return got;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

if (process.argv[2] === 'fetch') process.stdout.write(`fake-gcs-server ${FAKE_GCS_VERSION} is at ${ensureFakeGcs()}\n`);
