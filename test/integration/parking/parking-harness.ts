// A destination pool with parking, on the suite's broker and the AWS emulator: Kinesis destinations
// behind fault proxies, a scripted config log, and every settlement of the main path recorded.
import type { CloudDeps } from '../../../src/delivery/destinations/aws/client-config.js';
import { randomBytes } from 'node:crypto';
import type { ConfigChange, ConfigLog } from '../../../src/configlog/config-log.js';
import type { ConfigValue } from '../../../src/configlog/format.js';
import type { StoredDestination, StoredTarget } from '../../../src/configlog/resources.js';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import type { WriterDeps } from '../../../src/delivery/destination-kind.js';
import { DestinationPool } from '../../../src/delivery/destination-pool.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { Parking } from '../../../src/delivery/parking/parking.js';
import { KafkaParkingStore } from '../../../src/delivery/parking/parking-store.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { testClient, uniqueName } from '../../support/kafka.js';
import { RecordingDeadLetters } from '../delivery/writer-contract.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';
import { writerDeps } from '../../support/writer-deps.js';

/** Just the calls the pool makes, driven by the test. */
export class ScriptedConfigLog {
  private listener: ((c: ConfigChange) => void) | undefined;
  readonly ids = new Set<string>();
  list(): ConfigValue[] {
    return [];
  }
  onChange(l: (c: ConfigChange) => void): () => void {
    this.listener = l;
    return () => undefined;
  }
  put(dest: StoredDestination): void {
    this.ids.add(dest.id);
    const after = { v: 1, kind: 'event_destination', data: dest } as unknown as ConfigValue;
    this.listener?.({ id: dest.id, kind: 'event_destination', before: undefined, after });
  }
  delete(id: string): void {
    this.ids.delete(id);
    this.listener?.({ id, kind: 'event_destination', before: undefined, after: undefined });
  }
}

export async function until(check: () => boolean | Promise<boolean>, ms = 30_000, what = 'a condition'): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ParkingHarness {
  readonly pool: DestinationPool;
  readonly parking: Parking;
  readonly store: KafkaParkingStore;
  readonly log: ScriptedConfigLog;
  readonly deadLetter: RecordingDeadLetters;
  readonly prefix: string;
  readonly groupPrefix: string;
  /** Settlements of main-path deliveries (re-driven ones are the parking's), by event id. */
  readonly settled: Map<string, Settlement>;
  readonly secrets: SecretBox;
  /** A data_stream destination on `arn`, through `proxy` (or straight to the emulator). */
  addDestination(arn: string, proxy?: AwsFaultProxy): string;
  /** A destination with any stored target; `id` puts a new version of an existing one. */
  putDestination(target: StoredTarget, id?: string): string;
  enqueue(id: string, items: readonly DeliveryItem[]): void;
  /** What the ingest worker does after each batch it routed: the runner writes what it holds now. */
  flush(id: string): void;
  close(): Promise<void>;
}

export interface ParkingHarnessOptions {
  readonly retry?: { maxAttempts: number; maxElapsedMs: number };
  /** Another harness's retry topic prefix and group prefix: a worker restarted on the same topics. */
  readonly sameTopicsAs?: ParkingHarness;
  /** More of the writers' cloud settings (the gcs kind's API and token endpoints). */
  readonly cloud?: Partial<CloudDeps>;
  /** Service settings of the writers beyond the defaults (DATADOG_BASE_URL, AZURE_AUTHORITY_URL). */
  readonly deps?: Pick<WriterDeps, 'datadog' | 'azure'>;
}

export async function parkingHarness(opts: ParkingHarnessOptions = {}): Promise<ParkingHarness> {
  const kafka = testClient('parking-test');
  const prefix = opts.sameTopicsAs?.prefix ?? `${uniqueName('edge.retry')}.`;
  const groupPrefix = opts.sameTopicsAs?.groupPrefix ?? uniqueName('parking-group');
  const secrets = opts.sameTopicsAs?.secrets ?? new SecretBox(randomBytes(32));
  const store = new KafkaParkingStore({ kafka, prefix, partitions: 1 });
  const deadLetter = new RecordingDeadLetters();
  const log = new ScriptedConfigLog();
  const settled = new Map<string, Settlement>();
  const parking: Parking = new Parking({
    kafka,
    store,
    prefix,
    groupPrefix,
    runner: (id) => pool.get(id),
    exists: (id) => log.ids.has(id),
    deadLetter,
    scanIntervalMs: 500,
    probeIntervalMs: 500,
    redriveBackoff: { baseDelayMs: 200, maxDelayMs: 1_000 },
    retireAfterMs: 1_000,
  });
  const pool: DestinationPool = new DestinationPool({
    deps: writerDeps({ kafkaClient: () => kafka, cloud: { timeoutMs: 2_000, ...opts.cloud }, ...opts.deps }),
    budget: new InFlightBudget(),
    deadLetter,
    secrets,
    retry: { baseDelayMs: 20, maxDelayMs: 100, ...(opts.retry ?? { maxAttempts: 3, maxElapsedMs: 300 }) },
    batching: { lingerMs: 5 },
    drainTimeoutMs: 2_000,
    onBudgetExhausted: (id) => parking.hookFor(id),
    wrapWriter: (id, w) => parking.wrapWriter(id, w),
    onSettled: (item, s, id) => {
      if (!parking.settle(item, s, id)) settled.set(item.eventId, s);
    },
  });
  pool.follow(log as unknown as ConfigLog);
  await parking.start();
  const putDestination = (target: StoredTarget, id = `ed_${randomBytes(13).toString('hex').toUpperCase().slice(0, 26)}`): string => {
    log.put({ id, created_at: new Date().toISOString(), description: '', metadata: '', format: 'json', target });
    return id;
  };
  return {
    pool,
    parking,
    store,
    log,
    deadLetter,
    prefix,
    groupPrefix,
    settled,
    secrets,
    addDestination(arn, proxy) {
      return putDestination({
        data_stream: {
          auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key_enc: secrets.seal('writer-secret') } },
          stream_arn: arn,
          endpoint: proxy?.endpoint ?? motoEndpoint(),
        },
      });
    },
    putDestination,
    enqueue(id, items) {
      const runner = pool.get(id);
      if (runner === undefined) throw new Error(`no runner for ${id}`);
      for (const i of items) runner.enqueue(i);
    },
    flush(id) {
      void pool.get(id)?.flush();
    },
    async close() {
      await parking.stop();
      await pool.close(2_000);
      await store.close();
    },
  };
}
