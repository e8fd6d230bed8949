import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildWriter, destinationSecrets, MisconfiguredWriter } from '../../../src/delivery/build-writer.js';
import { sealableSecrets } from '../../../src/delivery/destinations/http/url-secrets.js';
import { redactMessage } from '../../../src/delivery/status/redact.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { item } from './fakes.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { writerDeps } from '../../support/writer-deps.js';

const deps = writerDeps();

describe('buildWriter', () => {
  it('should build the real writer when the secrets open and the config is valid', () => {
    const box = new SecretBox(randomBytes(32));
    const built = buildWriter({ http: { url: 'http://127.0.0.1:9/x', secret_enc: box.seal('a-signing-secret-of-length') } }, box, deps, OPERATOR);
    expect(built.problem).toBeUndefined();
    expect(built.writer.kind).toBe('http');
    expect(built.writer).not.toBeInstanceOf(MisconfiguredWriter);
  });

  it('should give a destination whose secret was sealed with another key a writer that fails writes and health checks with the reason', async () => {
    const other = new SecretBox(randomBytes(32));
    const built = buildWriter({ http: { url: 'http://127.0.0.1:9/x', secret_enc: other.seal('a-signing-secret-of-length') } }, new SecretBox(randomBytes(32)), deps, OPERATOR);
    const problem = { code: 'DESTINATION_MISCONFIGURED', retryable: true, message: expect.stringContaining("the secret target.http.secret cannot be opened with this service's SECRET_KEY") };
    expect(built.problem).toMatchObject(problem);
    expect(built.writer.kind).toBe('http');
    await expect(built.writer.write([item()])).rejects.toMatchObject(problem);
    await expect(built.writer.healthcheck()).rejects.toMatchObject(problem);
    // The message never carries the secret itself.
    expect(built.problem?.message).not.toContain('a-signing-secret-of-length');
  });

  it("should give a destination whose config the writer rejects a writer that fails with the writer's reason", async () => {
    const built = buildWriter({ kafka: { topic: 'not a topic name' } }, new SecretBox(randomBytes(32)), deps, OPERATOR);
    expect(built.problem).toMatchObject({ code: 'DESTINATION_MISCONFIGURED', message: expect.stringContaining('target.kafka.topic is not a valid Kafka topic name') });
    await expect(built.writer.write([item()])).rejects.toMatchObject({ code: 'DESTINATION_MISCONFIGURED' });
  });

  it("should refuse to build a writer to one of the service's own topics, stored before the rule existed", () => {
    const built = buildWriter({ kafka: { topic: 'edge.audit' } }, new SecretBox(randomBytes(32)), deps, OPERATOR);
    expect(built.problem).toMatchObject({ code: 'DESTINATION_MISCONFIGURED', message: expect.stringContaining('which is refused: it is the audit topic of this service') });
  });

  it("should give the scrubber a URL's password and each query value apart, as written and decoded, so a message quoting one alone never shows it", () => {
    const box = new SecretBox(randomBytes(32));
    const password = 'pw-%C3%A9t%C3%A9-2026';
    const query = ['q-value-0123456789', 'with+space%20here'];
    const target = { http: { url: 'https://edge:REDACTED@hooks.example.com/in?mode=REDACTED&x=REDACTED', url_secrets_enc: box.seal(sealableSecrets({ password, query })) } };
    const secrets = destinationSecrets(target, box);
    for (const quoted of [password, 'pw-été-2026', query[0]!, query[1]!, 'with space here']) {
      const message = redactMessage(`The receiver refused the credentials: ${quoted} was not accepted.`, secrets);
      expect(message).not.toContain(quoted);
      expect(message).toContain('[redacted]');
    }
  });
});
