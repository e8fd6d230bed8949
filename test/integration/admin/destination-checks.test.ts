// Accepted means deliverable: the admin API checks a destination's target before it stores it, through the
// real server socket, the suite's real broker and the AWS emulator. A kafka topic is created when missing
// or the cluster's refusal is answered; the service's own topics and illegal names are refused; a cloud
// target is described with its own auth, the role assumed first; "verify": false skips the check.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findFreePorts } from '../../../src/kafka/free-port.js';
import { MOTO_ACCOUNT, arnOf } from '../../support/moto.js';
import { testClient, uniqueName, withAdmin } from '../../support/kafka.js';
import { createDataStream, createDeliveryStream, createLogGroup, motoEndpoint } from '../cloud/cloud-fixtures.js';
import { startAdmin, type AdminHarness, type Body } from './admin-harness.js';

const ROLE = `arn:aws:iam::${MOTO_ACCOUNT}:role/edge-events-delivery`;
const CREDS = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key: 'writer-secret' } };

let h: AdminHarness;
beforeAll(async () => {
  // The service's own identity, which assumes roles, comes from the SDK's default chain: here, the environment.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAEDGEEVENTSBASE01');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'base-secret');
  h = await startAdmin({ env: { CLOUD_ENDPOINT_URL: motoEndpoint(), CLOUD_TIMEOUT_MS: '5000' } });
});
afterAll(async () => {
  await h?.stop();
  vi.unstubAllEnvs();
});

const create = (body: unknown) => h.call('POST', '/event_destinations', { body });

async function topicPartitions(topic: string): Promise<number | undefined> {
  return withAdmin(testClient(), async (admin) => {
    if (!(await admin.listTopics()).includes(topic)) return undefined;
    return (await admin.partitionOffsets(topic)).length;
  });
}

function expectError(r: { status: number; json: Body; text: string }, status: number, code: string, field: string): Body {
  expect(r.status, r.text).toBe(status);
  expect(r.json, r.text).toMatchObject({ error_code: code, status_code: status, details: { field } });
  return r.json;
}

describe('the checks of a kafka target', () => {
  it('should create a missing topic with the partitions the destination asks for, and keep an existing one', async () => {
    const topic = uniqueName('checks.new-topic');
    expect(await topicPartitions(topic)).toBeUndefined();
    const r = await create({ target: { kafka: { topic, partitions: 3 } } });
    expect(r.status, r.text).toBe(201);
    expect(await topicPartitions(topic)).toBe(3);
    // The topic exists now: another destination on it is accepted, and its settings do not change the topic.
    expect((await create({ target: { kafka: { topic, partitions: 5 } } })).status).toBe(201);
    expect(await topicPartitions(topic)).toBe(3);
  });

  it("should answer 422 with the broker's reason when the topic cannot be created, and create nothing", async () => {
    const topic = uniqueName('checks.unreplicated');
    const err = expectError(await create({ target: { kafka: { topic, replication_factor: 3 } } }), 422, 'topic_not_created', 'target.kafka.topic');
    expect(err.details).toMatchObject({ topic, error: 'INVALID_REPLICATION_FACTOR' });
    // The broker's (or the client's) text for the error, and how many brokers the cluster has.
    expect(err.details.reason).toMatch(/^\S.* \(replication factor 3; the cluster has 1 broker\)$/);
    expect(err.msg).toContain(`The topic ${topic} does not exist and could not be created: INVALID_REPLICATION_FACTOR`);
    expect(await topicPartitions(topic)).toBeUndefined();
    // The same request with the check skipped is stored as it is.
    expect((await create({ target: { kafka: { topic, replication_factor: 3 } }, verify: false })).status).toBe(201);
  });

  it('should answer 422 when the cluster a destination names cannot be reached, without telling a refused connection from a timeout', async () => {
    const [closed] = await findFreePorts(1);
    const r = await create({ target: { kafka: { topic: 'elsewhere', brokers: [`127.0.0.1:${closed}`] } } });
    const err = expectError(r, 422, 'destination_check_failed', 'target.kafka.brokers');
    expect(err.details).toMatchObject({ error: 'DESTINATION_UNREACHABLE', reason: 'The cluster could not be reached.' });
  });

  it('should refuse a topic name Kafka would refuse, naming the rule', async () => {
    const long = expectError(await create({ target: { kafka: { topic: 'x'.repeat(250) } } }), 400, 'invalid_topic_name', 'target.kafka.topic');
    expect(long.details.reason).toBe('it is 250 characters long; the limit is 249');
    const slash = expectError(await create({ target: { kafka: { topic: 'orders/eu' } } }), 400, 'invalid_topic_name', 'target.kafka.topic');
    expect(slash.msg).toBe('The field target.kafka.topic is not a valid Kafka topic name: it contains "/"; only ASCII letters, digits, ".", "_" and "-" are allowed.');
    expectError(await create({ target: { kafka: { topic: '..' } } }), 400, 'invalid_topic_name', 'target.kafka.topic');
  });

  it("should refuse the service's own topics, with or without the check, and on any cluster", async () => {
    const own = [`${h.prefix}.config`, `${h.prefix}.audit`, `${h.prefix}.dlq`, `${h.prefix}.status`, `${h.prefix}.http`, `${h.prefix}.retry.ed_01JD3Z8Q4T2R7M5N6P9K0W1X2Y`, '__consumer_offsets'];
    for (const topic of own) {
      const err = expectError(await create({ target: { kafka: { topic } }, verify: false }), 400, 'internal_topic', 'target.kafka.topic');
      expect(err.details.topic).toBe(topic);
    }
    const other = expectError(await create({ target: { kafka: { topic: `${h.prefix}.config`, brokers: ['elsewhere:9092'] } } }), 400, 'internal_topic', 'target.kafka.topic');
    expect(other.msg).toBe(`The field target.kafka.topic names the topic ${h.prefix}.config, which destinations may not write to: it is the config log of this service.`);
  });
});

describe('the checks of a cloud target', () => {
  it('should accept each kind whose resource exists, with a key pair or an assumed role', async () => {
    const stream = await createDataStream('checks-ok');
    const delivery = await createDeliveryStream('checks-ok');
    const group = await createLogGroup('checks-ok');
    for (const target of [
      { data_stream: { auth: CREDS, stream_arn: stream.arn } },
      { delivery_stream: { auth: { role: { role_arn: ROLE } }, delivery_stream_arn: delivery.arn } },
      { log_service: { auth: { role: { role_arn: ROLE } }, log_group_arn: group.arn } },
    ]) {
      const r = await create({ target });
      expect(r.status, r.text).toBe(201);
    }
  });

  it("should answer 422 with AWS's error code and message when the resource does not exist, unless the check is skipped", async () => {
    const missing = arnOf('data_stream', uniqueName('no-such-stream'));
    const err = expectError(await create({ target: { data_stream: { auth: CREDS, stream_arn: missing } } }), 422, 'destination_check_failed', 'target.data_stream.stream_arn');
    expect(err.details.error).toBe('ResourceNotFoundException');
    expect(err.details.reason).toMatch(/not found/i);
    expect(err.msg).toContain('ResourceNotFoundException');
    expect(JSON.stringify(err)).not.toContain('writer-secret');
    const skipped = await create({ target: { data_stream: { auth: CREDS, stream_arn: missing } }, verify: false });
    expect(skipped.status, skipped.text).toBe(201);

    const group = arnOf('log_service', uniqueName('no-such-group'));
    const logs = expectError(await create({ target: { log_service: { auth: { role: { role_arn: ROLE } }, log_group_arn: group } } }), 422, 'destination_check_failed', 'target.log_service.log_group_arn');
    expect(logs.details).toMatchObject({ error: 'DESTINATION_NOT_FOUND', reason: expect.stringMatching(/Log group .* does not exist/) });
  });

  it('should check the new target of an update, and skip the check when asked', async () => {
    const stream = await createDataStream('checks-update');
    const created = await create({ target: { data_stream: { auth: CREDS, stream_arn: stream.arn } } });
    expect(created.status, created.text).toBe(201);
    const gone = { data_stream: { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER' } }, stream_arn: arnOf('data_stream', uniqueName('gone')) } };
    // The stored secret is kept, and used for the check.
    expectError(await h.call('PATCH', `/event_destinations/${created.json.id}`, { body: { target: gone } }), 422, 'destination_check_failed', 'target.data_stream.stream_arn');
    expect((await h.call('GET', `/event_destinations/${created.json.id}`)).json.target.data_stream.stream_arn).toBe(stream.arn);
    const skipped = await h.call('PATCH', `/event_destinations/${created.json.id}`, { body: { target: gone, verify: false } });
    expect(skipped.status, skipped.text).toBe(200);
    // A change of description alone is not checked again.
    expect((await h.call('PATCH', `/event_destinations/${created.json.id}`, { body: { description: 'renamed' } })).status).toBe(200);
  });
});

describe('a role target while the service has no identity of its own', () => {
  let bare: AdminHarness;
  beforeAll(async () => {
    // Nothing the SDK's default chain could find: no keys in the environment, no files, no instance metadata.
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_WEB_IDENTITY_TOKEN_FILE']) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/edge-events/credentials');
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/edge-events/config');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    bare = await startAdmin({ env: { CLOUD_ENDPOINT_URL: motoEndpoint(), CLOUD_TIMEOUT_MS: '5000' } });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('should refuse it with 422 and the reason, not accept a destination whose every delivery would fail', async () => {
    const group = await createLogGroup('checks-no-identity');
    const r = await bare.call('POST', '/event_destinations', { body: { target: { log_service: { auth: { role: { role_arn: ROLE } }, log_group_arn: group.arn } } } });
    const err = expectError(r, 422, 'destination_check_failed', 'target.log_service.auth.role.role_arn');
    expect(err.details).toMatchObject({ error: 'CredentialsProviderError', reason: expect.stringContaining('Could not load credentials from any providers') });
    expect(err.msg).toBe(
      'The destination failed its check with its own settings: CredentialsProviderError: Could not load credentials from any providers. Fix it, or send "verify": false to store it anyway.',
    );
    // A key pair of the destination's own needs no identity of the service's.
    const keyed = await bare.call('POST', '/event_destinations', { body: { target: { log_service: { auth: CREDS, log_group_arn: group.arn } } } });
    expect(keyed.status, keyed.text).toBe(201);
  });
});
