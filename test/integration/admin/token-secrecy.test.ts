// A token is secret: it appears in the creation response and nowhere else — not in the config topic,
// the audit topic, the logs, or any later response. The generated bootstrap token goes to API_TOKEN_FILE
// and, at a terminal, to the ready block; never to a JSON log line, which log collectors pick up.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/admin/api-keys/tokens.js';
import { consumeUntil, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { request } from './admin-harness.js';

let service: ServiceProcess | undefined;
afterAll(async () => {
  await service?.stop();
});

const TOKEN = /eek_[0-9A-Za-z]{43}/;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The service's output lines as a process started with `env`, until `done` passes one or it exits. */
async function output(env: Record<string, string>, done: (line: string) => boolean): Promise<{ lines: string[]; code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seen = new Promise<void>((resolve) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream as Readable }).on('line', (line) => {
        lines.push(line);
        if (done(line)) resolve();
      });
    }
  });
  const ended = await Promise.race([seen.then(() => 'seen' as const), exited.then(() => 'exited' as const), new Promise((r) => setTimeout(r, 90_000, 'late'))]);
  if (ended !== 'exited') child.kill('SIGTERM');
  const code = await exited;
  return { lines, code: ended === 'exited' ? code : null };
}

describe('token secrecy', () => {
  it('tokens should never reach the config topic, the audit topic, the logs or a later response', async () => {
    const prefix = uniqueName('secrecy');
    const env = serviceEnv(prefix, testBrokers(), { ROLES: 'api', PUBLIC_BASE_URL: 'https://api.edge.test' });
    service = await startService({ ...env, API_BOOTSTRAP_TOKEN: '' });

    // JSON log lines (no terminal): the generated bootstrap token is in API_TOKEN_FILE alone, readable by
    // its owner only; the log says where, and which key it is.
    const tokenFile = env.API_TOKEN_FILE as string;
    const bootstrapToken = readFileSync(tokenFile, 'utf8').trim();
    expect(bootstrapToken).toMatch(TOKEN);
    expect(statSync(tokenFile).mode & 0o077).toBe(0);
    expect(service.logs.filter((l) => TOKEN.test(l))).toEqual([]);
    const bootstrapLog = service.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => typeof l.msg === 'string' && l.msg.includes('the bootstrap API key was created'));
    expect(bootstrapLog?.tokenFile).toBe(tokenFile);
    const bootstrapId = bootstrapLog?.id as string;
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
    const logs = service.logs;
    expect(logs.some((l) => l.includes('The service stopped.'))).toBe(true);
    for (const s of secrets) expect(logs.filter((l) => l.includes(s.slice(4)))).toEqual([]);
  });

  it('at a terminal the generated token should be in the ready block, once; with JSON lines and no token file, no key is made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-terminal-'));
    try {
      const env = serviceEnv(uniqueName('terminal'), testBrokers(), { ROLES: 'api', PUBLIC_BASE_URL: 'https://api.edge.test', API_BOOTSTRAP_TOKEN: '', API_TOKEN_FILE: join(dir, 'api-token'), LOG_FORMAT: 'pretty', NO_COLOR: '1' });
      const pretty = await output(env, (l) => l.startsWith('  Stop '));
      const token = readFileSync(join(dir, 'api-token'), 'utf8').trim();
      expect(pretty.lines.filter((l) => l.includes(token))).toEqual([`  Token    ${token}  (generated now; also in ${join(dir, 'api-token')}: export TOKEN=$(cat ${join(dir, 'api-token')}))`]);

      // JSON lines and a token file that cannot be written: the start fails saying why, and prints no token.
      const blocked = serviceEnv(uniqueName('nofile'), testBrokers(), { ROLES: 'api', PUBLIC_BASE_URL: 'https://api.edge.test', API_BOOTSTRAP_TOKEN: '', API_TOKEN_FILE: '/dev/null/api-token', LOG_FORMAT: 'json' });
      const refused = await output(blocked, () => false);
      expect(refused.code).toBe(1);
      expect(refused.lines.some((l) => l.includes('could not be written to API_TOKEN_FILE (/dev/null/api-token: EEXIST)'))).toBe(true);
      expect(refused.lines.filter((l) => TOKEN.test(l))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
