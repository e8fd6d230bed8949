// POST /event_destinations/{id}/test_event through the real admin API: a test envelope goes straight to the
// destination (read back from the emulator), and a failure answers with the destination's own error.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../../../src/events/envelope.js';
import { MOTO_ACCOUNT, arnOf } from '../../support/moto.js';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';
import { createDataStream, createLogGroup, motoEndpoint, readAtLeast } from './cloud-fixtures.js';

let api: AdminHarness;
beforeAll(async () => {
  // The service's own identity, which assumes roles, comes from the SDK's default chain (here: the environment).
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAEDGEEVENTSBASE01');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'base-secret');
  // The service-wide endpoint (CLOUD_ENDPOINT_URL) serves destinations without their own, and STS.
  api = await startAdmin({ env: { CLOUD_ENDPOINT_URL: motoEndpoint(), CLOUD_TIMEOUT_MS: '5000' } });
});
afterAll(async () => {
  await api?.stop();
  vi.unstubAllEnvs();
});

const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key: 'writer-secret' } };

async function create(target: Record<string, unknown>, verify = true, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await api.call('POST', '/event_destinations', { body: { description: 'test event', target, verify, ...extra } });
  expect(r.status, r.text).toBe(201);
  return r.json.id as string;
}

describe('POST /event_destinations/{id}/test_event', () => {
  it('should deliver one test_event.v0 envelope naming the destination and the caller', async () => {
    const stream = await createDataStream('test-event');
    const id = await create({ data_stream: { auth: creds, stream_arn: stream.arn, endpoint: motoEndpoint() } });
    const r = await api.call('POST', `/event_destinations/${id}/test_event`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ delivered: true, event_id: expect.stringMatching(/^ev_/), status_code: null, duration_ms: expect.any(Number) });
    const [got] = await readAtLeast(stream, 1);
    const envelope = got!.envelope as Envelope;
    expect(envelope).toMatchObject({
      event_id: r.json.event_id,
      event_type: 'test_event.v0',
      object: { destination: { id, uri: `https://api.edge.test/event_destinations/${id}` } },
      principal: { type: 'api_key', id: expect.stringMatching(/^ak_/) },
    });
  });

  it('should write the event timestamp in the destination\'s timestamp_format, as its other events are', async () => {
    const stream = await createDataStream('test-event-unixmilli');
    const id = await create({ data_stream: { auth: creds, stream_arn: stream.arn, endpoint: motoEndpoint() } }, true, { timestamp_format: 'unixmilli' });
    const before = Date.now();
    const r = await api.call('POST', `/event_destinations/${id}/test_event`);
    expect(r.json.delivered, r.text).toBe(true);
    const [got] = await readAtLeast(stream, 1);
    const at = (got!.envelope as Envelope).event_timestamp;
    expect(typeof at).toBe('number');
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  it('should deliver through an assumed role, with STS at the service-wide endpoint', async () => {
    const group = await createLogGroup('test-event-role');
    const id = await create({ log_service: { auth: { role: { role_arn: `arn:aws:iam::${MOTO_ACCOUNT}:role/edge-events` } }, log_group_arn: group.arn } });
    const r = await api.call('POST', `/event_destinations/${id}/test_event`);
    expect(r.json).toEqual({ delivered: true, event_id: expect.any(String), status_code: null, duration_ms: expect.any(Number) });
    expect((await readAtLeast(group, 1)).map((g) => g.envelope.event_id)).toEqual([r.json.event_id]);
  });

  it('should report the destination\'s error when the event cannot be delivered', async () => {
    // Stored without its check, which would have refused it.
    const id = await create({ delivery_stream: { auth: creds, delivery_stream_arn: arnOf('delivery_stream', 'no-such-stream') } }, false);
    const r = await api.call('POST', `/event_destinations/${id}/test_event`);
    expect(r.status).toBe(200);
    expect(r.json.delivered).toBe(false);
    expect(r.json.error.code).toBe('DESTINATION_NOT_FOUND');
    // The connect before the write reads the stream, as a worker's first connect does, and finds it gone.
    expect(r.json.error.message).toMatch(/^Describing the destination failed: ResourceNotFoundException: Firehose no-such-stream /);
  });

  it('should answer 404 for a destination that does not exist', async () => {
    const r = await api.call('POST', '/event_destinations/ed_01JD3Z8Q4T2R7M5N6P9K0W1X2Y/test_event');
    expect(r.status).toBe(404);
    expect(r.json.error_code).toBe('not_found');
  });
});
