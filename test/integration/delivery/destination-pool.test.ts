// The destination pool across config changes, with real http writers and a real receiver: events queued
// for a destination follow it when it changes and are dead-lettered when it is deleted, never lost; one
// that cannot even be opened says so before its first event.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigChange, ConfigLog } from '../../../src/configlog/config-log.js';
import type { ConfigValue } from '../../../src/configlog/format.js';
import type { StoredDestination } from '../../../src/configlog/resources.js';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationPool } from '../../../src/delivery/destination-pool.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { RecordingDeadLetterSink } from '../../unit/delivery/fakes.js';
import { HttpReceiver } from './http-receiver.js';
import { writerDeps } from '../../support/writer-deps.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';

/** Just the two calls the pool makes, driven by the test. */
class ScriptedConfigLog {
  private listener: ((c: ConfigChange) => void) | undefined;
  list(): ConfigValue[] {
    return [];
  }
  onChange(l: (c: ConfigChange) => void): () => void {
    this.listener = l;
    return () => undefined;
  }
  put(dest: StoredDestination): void {
    const after = { v: 1, kind: 'event_destination', data: dest } as unknown as ConfigValue;
    this.listener?.({ id: dest.id, kind: 'event_destination', before: undefined, after });
  }
  delete(id: string): void {
    this.listener?.({ id, kind: 'event_destination', before: undefined, after: undefined });
  }
}

function httpDest(id: string, url: string): StoredDestination {
  return { id, created_at: new Date().toISOString(), description: '', metadata: '', format: 'json', target: { http: { url } } };
}

function items(n: number): DeliveryItem[] {
  return Array.from({ length: n }, (_, i) => {
    const envelope = makeEnvelope('tcp_connection_closed.v0', { conn: { bytes_in: i } });
    return { eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope, source: { topic: 't', partition: 0, offset: i } };
  });
}

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const receivers: HttpReceiver[] = [];
let pool: DestinationPool | undefined;
afterEach(async () => {
  await pool?.close(1_000);
  await Promise.all(receivers.map((r) => r.stop()));
});

function setup(deps = writerDeps()) {
  const log = new ScriptedConfigLog();
  const deadLetter = new RecordingDeadLetterSink();
  const settled: Array<{ id: string; settlement: Settlement }> = [];
  const secrets = new SecretBox(randomBytes(32));
  pool = new DestinationPool({
    deps,
    budget: new InFlightBudget(),
    deadLetter,
    secrets,
    onSettled: (item, settlement) => settled.push({ id: item.eventId, settlement }),
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
    batching: { lingerMs: 5 },
    drainTimeoutMs: 500,
  });
  pool.follow(log as unknown as ConfigLog);
  return { log, deadLetter, settled, pool, secrets };
}

describe('destination pool', () => {
  it('should move events queued for a failing destination to its new target when the destination changes', async () => {
    const { log, settled, pool: p } = setup();
    const receiver = new HttpReceiver();
    receivers.push(receiver);
    await receiver.start();
    log.put(httpDest('ed_01JD00000000000000000000AA', 'http://127.0.0.1:9/nothing-listens-here'));
    const batch = items(50);
    for (const it of batch) expect(p.get('ed_01JD00000000000000000000AA')?.enqueue(it)).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // a few failed attempts against the dead target
    log.put(httpDest('ed_01JD00000000000000000000AA', receiver.url));
    await until(() => new Set(settled.filter((s) => s.settlement === 'acked').map((s) => s.id)).size === batch.length);
    expect(new Set(receiver.delivered().map((e) => e.event_id))).toEqual(new Set(batch.map((b) => b.eventId)));
  });

  it('should dead-letter the undelivered events of a deleted destination instead of dropping them', async () => {
    const { log, settled, deadLetter, pool: p } = setup();
    log.put(httpDest('ed_01JD00000000000000000000BB', 'http://127.0.0.1:9/nothing-listens-here'));
    const batch = items(20);
    for (const it of batch) p.get('ed_01JD00000000000000000000BB')?.enqueue(it);
    log.delete('ed_01JD00000000000000000000BB');
    await until(() => settled.length === batch.length);
    expect(settled.every((s) => s.settlement === 'dead_lettered')).toBe(true);
    expect(deadLetter.letters.map((l) => l.errorCode)).toEqual(batch.map(() => 'DESTINATION_REMOVED'));
    expect(new Set(deadLetter.letters.map((l) => String(l.key)))).toEqual(new Set(batch.map((b) => b.eventId)));
    expect(p.get('ed_01JD00000000000000000000BB')).toBeUndefined();
  });

  it('should show a destination that cannot be opened as failing with the reason within seconds, before its first event, and ok once fixed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'edge-pool-'));
    try {
      mkdirSync(join(root, 'a-directory'));
      const { log, pool: p } = setup(writerDeps({ fileRoot: root }));
      const id = 'ed_01JD00000000000000000000DD';
      const fileDest = (path: string): StoredDestination => ({ ...httpDest(id, ''), target: { file: { path } } });
      log.put(fileDest('a-directory'));
      await until(() => p.status(id)?.state === 'failing', 5_000);
      expect(p.status(id)?.lastError?.message).toMatch(/EISDIR/);
      expect(p.status(id)?.lastAttemptAt).toBeDefined();
      log.put(fileDest('a-directory/events.ndjson'));
      expect(p.status(id)?.state).toBe('unknown');
      for (const it of items(3)) p.get(id)?.enqueue(it);
      await until(() => p.status(id)?.state === 'ok', 5_000);
    } finally {
      await pool?.close(1_000);
      pool = undefined;
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('should show a cloud destination whose resource is gone (a bucket that does not exist) as failing within seconds, before its first event', async () => {
    const { log, pool: p, secrets } = setup();
    const id = 'ed_01JD00000000000000000000EE';
    const bucket = `edge-pool-missing-${randomBytes(4).toString('hex')}`;
    log.put({
      ...httpDest(id, ''),
      target: { object_store: { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key_enc: secrets.seal('writer-secret') } }, bucket, endpoint: motoEndpoint() } },
    } as StoredDestination);
    await until(() => p.status(id)?.state === 'failing', 5_000);
    expect(p.status(id)?.lastError?.code).toBe('DESTINATION_NOT_FOUND');
  });

  it('should run a destination whose config its writer rejects, failing every write with the reason, and deliver its events once the config is fixed', async () => {
    const { log, settled, pool: p } = setup();
    const receiver = new HttpReceiver();
    receivers.push(receiver);
    await receiver.start();
    const id = 'ed_01JD00000000000000000000CC';
    log.put(httpDest(id, 'ftp://127.0.0.1/not-http'));
    const batch = items(10);
    for (const it of batch) expect(p.get(id)?.enqueue(it)).toBe(true);
    await until(() => p.status(id)?.state === 'failing');
    expect(p.status(id)?.lastError).toMatchObject({ code: 'DESTINATION_MISCONFIGURED', message: expect.stringMatching(/target\.http\.url must use http or https/) });
    expect(settled).toEqual([]);

    log.put(httpDest(id, receiver.url));
    await until(() => settled.length === batch.length);
    expect(settled.every((s) => s.settlement === 'acked')).toBe(true);
    expect(new Set(receiver.delivered().map((e) => e.event_id))).toEqual(new Set(batch.map((b) => b.eventId)));
    expect(p.status(id)?.state).toBe('ok');
  });
});
