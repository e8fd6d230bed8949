// A bucket in the AWS emulator's S3 for the object_store tests, read back with a standard S3 client
// (@aws-sdk/client-s3): every object's key, content type and bytes, gunzipped where the key ends in .gz.
import { gunzipSync } from 'node:zlib';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Envelope } from '../../../src/events/envelope.js';
import { motoClientConfig, uniqueResource } from '../../support/moto.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';

export interface StoredObject {
  readonly key: string;
  readonly contentType: string | undefined;
  /** The bytes as stored. */
  readonly raw: Buffer;
  /** The bytes gunzipped where the key ends in .gz, else as stored. */
  readonly text: string;
}

export class TestBucket {
  readonly s3: S3Client;

  private constructor(readonly name: string) {
    this.s3 = new S3Client({ ...motoClientConfig(motoEndpoint()), forcePathStyle: true, requestHandler: new NodeHttpHandler() });
  }

  static async create(prefix = 'os'): Promise<TestBucket> {
    const bucket = new TestBucket(uniqueResource(prefix).toLowerCase().replace(/[^a-z0-9-]/g, '-'));
    await bucket.s3.send(new CreateBucketCommand({ Bucket: bucket.name }));
    return bucket;
  }

  /** The target of a destination writing here through the emulator (secrets in clear, as writers get them). */
  target(extra: Record<string, unknown> = {}, endpoint = motoEndpoint()): Record<string, unknown> {
    return { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key: 'writer-secret' } }, bucket: this.name, endpoint, ...extra };
  }

  /** Every object, in key order (ListObjectsV2 lists keys in UTF-8 binary order). */
  async objects(): Promise<StoredObject[]> {
    const out: StoredObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.name, ...(token && { ContinuationToken: token }) }));
      for (const o of page.Contents ?? []) {
        const got = await this.s3.send(new GetObjectCommand({ Bucket: this.name, Key: o.Key }));
        const raw = Buffer.from((await got.Body?.transformToByteArray()) ?? new Uint8Array());
        const key = o.Key ?? '';
        out.push({ key, contentType: got.ContentType, raw, text: (key.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8') });
      }
      token = page.NextContinuationToken;
    } while (token !== undefined);
    return out;
  }

  /** The events of the NDJSON objects (the create-time check object left out), duplicates kept. */
  async events(): Promise<Envelope[]> {
    const objects = (await this.objects()).filter((o) => /\.ndjson(\.gz)?$/.test(o.key));
    return objects.flatMap((o) => o.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Envelope));
  }

  /** Polls until at least `atLeast` distinct events arrived, or returns what there is after `ms`. */
  async eventsAtLeast(atLeast: number, ms = 15_000): Promise<Envelope[]> {
    const deadline = Date.now() + ms;
    while (true) {
      const got = await this.events();
      if (new Set(got.map((e) => e.event_id)).size >= atLeast || Date.now() > deadline) return got;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
