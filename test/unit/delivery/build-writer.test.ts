import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildWriter, MisconfiguredWriter } from '../../../src/delivery/build-writer.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { item } from './fakes.js';
import { writerDeps } from '../../support/writer-deps.js';

const deps = writerDeps();

describe('buildWriter', () => {
  it('should build the real writer when the secrets open and the config is valid', () => {
    const box = new SecretBox(randomBytes(32));
    const built = buildWriter({ http: { url: 'http://127.0.0.1:9/x', secret_enc: box.seal('a-signing-secret-of-length') } }, box, deps);
    expect(built.problem).toBeUndefined();
    expect(built.writer.kind).toBe('http');
    expect(built.writer).not.toBeInstanceOf(MisconfiguredWriter);
  });

  it('should give a destination whose secret was sealed with another key a writer that fails writes and health checks with the reason', async () => {
    const other = new SecretBox(randomBytes(32));
    const built = buildWriter({ http: { url: 'http://127.0.0.1:9/x', secret_enc: other.seal('a-signing-secret-of-length') } }, new SecretBox(randomBytes(32)), deps);
    const problem = { code: 'DESTINATION_MISCONFIGURED', retryable: true, message: expect.stringContaining("the secret target.http.secret cannot be opened with this service's SECRET_KEY") };
    expect(built.problem).toMatchObject(problem);
    expect(built.writer.kind).toBe('http');
    await expect(built.writer.write([item()])).rejects.toMatchObject(problem);
    await expect(built.writer.healthcheck()).rejects.toMatchObject(problem);
    // The message never carries the secret itself.
    expect(built.problem?.message).not.toContain('a-signing-secret-of-length');
  });

  it("should give a destination whose config the writer rejects a writer that fails with the writer's reason", async () => {
    const built = buildWriter({ kafka: { topic: 'not a topic name' } }, new SecretBox(randomBytes(32)), deps);
    expect(built.problem).toMatchObject({ code: 'DESTINATION_MISCONFIGURED', message: expect.stringContaining('target.kafka.topic is not a valid Kafka topic name') });
    await expect(built.writer.write([item()])).rejects.toMatchObject({ code: 'DESTINATION_MISCONFIGURED' });
  });

  it("should refuse to build a writer to one of the service's own topics, stored before the rule existed", () => {
    const built = buildWriter({ kafka: { topic: 'edge.audit' } }, new SecretBox(randomBytes(32)), deps);
    expect(built.problem).toMatchObject({ code: 'DESTINATION_MISCONFIGURED', message: expect.stringContaining('which is refused: it is the audit topic of this service') });
  });
});
