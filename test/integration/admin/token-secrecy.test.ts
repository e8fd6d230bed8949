// A token is secret: it appears in the creation response and nowhere else — not in the config topic,
// the audit topic, the logs, or any later response. The generated bootstrap token is printed once and
// written to API_TOKEN_FILE.
import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/admin/api-keys/tokens.js';
import { consumeUntil, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { request } from './admin-harness.js';

let service: ServiceProcess | undefined;
afterAll(async () => {
  await service?.stop();
});

const BOOTSTRAP_LINE = /^API bootstrap token \(API key (ak_[0-9A-Z]{26}); also in (\S+)\): (eek_[0-9A-Za-z]{43})$/;

describe('token secrecy', () => {
  it('tokens should never reach the config topic, the audit topic, the logs or a later response', async () => {
    const prefix = uniqueName('secrecy');
    const env = serviceEnv(prefix, testBrokers(), { ROLES: 'api', PUBLIC_BASE_URL: 'https://api.edge.test' });
    service = await startService({ ...env, API_BOOTSTRAP_TOKEN: '' });

    // The generated bootstrap token is printed exactly once, on a line of its own.
    const printed = service.logs.filter((l) => BOOTSTRAP_LINE.test(l));
    expect(printed).toHaveLength(1);
    const [, bootstrapId, tokenFile, bootstrapToken] = BOOTSTRAP_LINE.exec(printed[0] as string) as RegExpExecArray;
    // ... and written to API_TOKEN_FILE, readable by its owner only.
    expect(tokenFile).toBe(env.API_TOKEN_FILE);
    expect(readFileSync(tokenFile as string, 'utf8')).toBe(`${bootstrapToken}\n`);
    expect(statSync(tokenFile as string).mode & 0o077).toBe(0);
    const url = service.url;

    const created = await request(url, 'POST', '/api_keys', { token: bootstrapToken, body: { description: 'secret keeper' } });
    expect(created.status).toBe(201);
    const token = created.json.token as string;
    const secrets = [bootstrapToken as string, token];

    // Use the tokens, fail with one, and read keys back.
    const later = [
      await request(url, 'GET', '/api_keys', { token }),
      await request(url, 'GET', `/api_keys/${created.json.id}`, { token }),
      await request(url, 'GET', `/api_keys/${bootstrapId}`, { token: bootstrapToken }),
      await request(url, 'PATCH', `/api_keys/${created.json.id}`, { token, body: { metadata: 'x' } }),
      await request(url, 'GET', '/ip_policies', { token: `${token}x` }),
      await request(url, 'POST', '/ip_policies', { token, body: { description: token.slice(0, 10) } }),
    ];
    expect(later.map((r) => r.status)).toEqual([200, 200, 200, 200, 401, 201]);
    for (const r of later) for (const s of secrets) expect(r.text).not.toContain(s);

    await request(url, 'DELETE', `/api_keys/${created.json.id}`, { token: bootstrapToken });
    expect((await request(url, 'GET', '/api_keys', { token })).status).toBe(401);

    // The raw config topic: hashes only. Reading the hash proves the records are there.
    const kafka = testClient();
    const config = await consumeUntil(kafka, {
      topics: [`${prefix}.config`],
      until: (got) => got.filter((m) => m.key?.startsWith('ak_')).length >= 4,
      timeoutMs: 20_000,
    });
    const configText = config.map((m) => `${m.key} ${m.value}`).join('\n');
    expect(configText).toContain(hashToken(token));
    expect(configText).toContain(hashToken(bootstrapToken as string));
    const audit = await consumeUntil(kafka, { topics: [`${prefix}.audit`], until: (got) => got.length >= 5, timeoutMs: 20_000 });
    const auditText = audit.map((m) => m.value).join('\n');
    expect(auditText).toContain('api_key_created.v0');
    for (const s of secrets) {
      expect(configText).not.toContain(s);
      expect(auditText).not.toContain(s);
      // Nor the random part alone, in case something strips the prefix.
      expect(configText).not.toContain(s.slice(4));
    }

    await service.stop();
    const logs = service.logs.filter((l) => !BOOTSTRAP_LINE.test(l));
    expect(logs.some((l) => l.includes('The service stopped.'))).toBe(true);
    for (const s of secrets) expect(logs.filter((l) => l.includes(s.slice(4)))).toEqual([]);
  });
});
