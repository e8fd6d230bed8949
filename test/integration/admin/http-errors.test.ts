// The admin API's transport-level errors over a real socket: JSON only, a body limit, unknown routes,
// and the one error body shape, never a stack trace.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BODY_LIMIT } from '../../../src/admin/server.js';
import { request, startAdmin, type AdminHarness, type CallResult } from './admin-harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
});
afterAll(async () => {
  await h?.stop();
});

function expectErrorBody(r: CallResult, status: number, code: string): void {
  expect([r.status, r.json?.error_code]).toEqual([status, code]);
  expect(Object.keys(r.json).sort()).toEqual(['details', 'error_code', 'msg', 'status_code']);
  expect(r.json.status_code).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+/);
}

/** Any method, with node:http (fetch refuses TRACE and CONNECT); no body, no content type. */
function send(method: string, path: string, token?: string): Promise<{ status: number; allow: string | undefined; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const req = httpRequest(`${h.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, json: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('admin API transport errors', () => {
  it('a body that is not JSON should be 400 invalid_json', async () => {
    expectErrorBody(await h.call('POST', '/ip_policies', { body: '{"description": ' }), 400, 'invalid_json');
  });

  it('a body with another content type should be 415 unsupported_media_type naming it', async () => {
    const r = await h.call('POST', '/ip_policies', { body: '{}', headers: { 'content-type': 'text/plain' } });
    expectErrorBody(r, 415, 'unsupported_media_type');
    expect(r.json.details.content_type).toBe('text/plain');
    expectErrorBody(await h.call('POST', '/ip_policies', { body: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
  });

  it('a body without a content type should be 415', async () => {
    const res = await fetch(`${h.url}/ip_policies`, { method: 'POST', headers: { authorization: `Bearer ${h.token}` }, body: new Uint8Array(Buffer.from('{}')) });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('unsupported_media_type');
  });

  it('JSON with a charset parameter should be accepted', async () => {
    expect((await h.call('POST', '/ip_policies', { body: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(201);
  });

  it('a body that is not UTF-8 should be 400 invalid_json, never stored with replacement characters', async () => {
    const bytes = Buffer.concat([Buffer.from('{"description": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await fetch(`${h.url}/ip_policies`, { method: 'POST', headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' }, body: new Uint8Array(bytes) });
    const body = (await res.json()) as { error_code: string; msg: string };
    expect([res.status, body.error_code]).toEqual([400, 'invalid_json']);
    expect(body.msg).toContain('UTF-8');
  });

  it('a lone surrogate in a string or a name should be 400 invalid_json; a pair is a character like any other', async () => {
    for (const body of ['{"description": "cust \\ud800 desc"}', '{"description": "\\udc00"}', '{"target": {"file": {"path": "a\\ud800"}}}', '{"\\ud800": 1}']) {
      const r = await h.call('POST', body.includes('target') ? '/event_destinations' : '/ip_policies', { body });
      expectErrorBody(r, 400, 'invalid_json');
      expect(r.json.msg, body).toContain('surrogate');
    }
    // Deep in a deeply nested body too, without a stack overflow.
    const deep = await h.call('POST', '/ip_policies', { body: `${'['.repeat(20_000)}"\\ud800"${']'.repeat(20_000)}` });
    expect([deep.status, deep.json.error_code]).toEqual([400, 'invalid_json']);
    const paired = await h.call('POST', '/ip_policies', { body: '{"description": "office \\ud83d\\ude00"}' });
    expect([paired.status, paired.json.description]).toEqual([201, 'office 😀']);
  });

  it('a body in another charset or with a Content-Encoding should be 415 unsupported_encoding naming it', async () => {
    expect((await h.call('POST', '/ip_policies', { body: '{}', headers: { 'content-type': 'application/json; charset=US-ASCII' } })).status, 'ASCII is UTF-8').toBe(201);
    const latin1 = await h.call('POST', '/ip_policies', { body: '{}', headers: { 'content-type': 'application/json; charset=latin1' } });
    expectErrorBody(latin1, 415, 'unsupported_encoding');
    expect(latin1.json.msg).toContain('latin1');
    for (const encoding of ['gzip', 'br']) {
      const r = await h.call('POST', '/ip_policies', { body: '{}', headers: { 'content-encoding': encoding } });
      expectErrorBody(r, 415, 'unsupported_encoding');
      expect(r.json.msg).toContain(encoding);
    }
    expect((await h.call('POST', '/ip_policies', { body: '{}', headers: { 'content-encoding': 'identity' } })).status).toBe(201);
  });

  it('a body over the limit should be 413 payload_too_large', async () => {
    const r = await h.call('POST', '/ip_policies', { body: JSON.stringify({ description: 'x'.repeat(ADMIN_BODY_LIMIT) }) });
    expectErrorBody(r, 413, 'payload_too_large');
    expect(r.json.details.limit).toBe(ADMIN_BODY_LIMIT);
  });

  it('a JSON body that is not an object should be 400 invalid_body', async () => {
    expectErrorBody(await h.call('POST', '/ip_policies', { body: '[]' }), 400, 'invalid_body');
    expectErrorBody(await h.call('POST', '/ip_policies', { body: '"x"' }), 400, 'invalid_body');
  });

  it('a __proto__ key should be refused as an unknown field', async () => {
    const r = await h.call('POST', '/ip_policies', { body: '{"__proto__": {"admin": true}}' });
    expectErrorBody(r, 400, 'unknown_field');
    expect(r.json.details.field).toBe('__proto__');
  });

  it('a DELETE with a JSON content type and an empty body should still work', async () => {
    const p = (await h.call('POST', '/ip_policies', { body: {} })).json;
    const r = await h.call('DELETE', `/ip_policies/${p.id}`, { body: '', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(204);
    // An empty body has nothing to decode, whatever its charset or encoding says.
    const sent: Record<string, string>[] = [{ 'content-type': 'application/json; charset=latin1' }, { 'content-type': 'application/json', 'content-encoding': 'gzip' }];
    for (const headers of sent) {
      const q = (await h.call('POST', '/ip_policies', { body: {} })).json;
      expect((await h.call('DELETE', `/ip_policies/${q.id}`, { body: '', headers })).status, JSON.stringify(headers)).toBe(204);
    }
  });

  it('an unknown route should be 404 route_not_found for an authenticated caller', async () => {
    const r = await h.call('GET', '/edges/http');
    expectErrorBody(r, 404, 'route_not_found');
    expect(r.json.details).toEqual({ method: 'GET', path: '/edges/http' });
  });

  it('an unknown route should be 401 without a token, so routes cannot be probed anonymously', async () => {
    expectErrorBody(await request(h.url, 'GET', '/edges/http'), 401, 'unauthorized');
  });

  it('a wrong-typed field should be 400 invalid_body naming the field and not coerced', async () => {
    const r = await h.call('POST', '/ip_policies', { body: { description: 12 } });
    expectErrorBody(r, 400, 'invalid_body');
    expect(r.json.details.field).toBe('description');
  });

  it('a URL with broken percent-encoding should get the catalogue body, not the framework default', async () => {
    expectErrorBody(await h.call('GET', '/ip_policies/%ZZ'), 400, 'bad_request');
  });

  it('a request the HTTP parser refuses (an unknown method, headers over the limit) should get the catalogue body too', async () => {
    const raw = (request: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const url = new URL(h.url);
        const socket = connect(Number(url.port), url.hostname, () => socket.end(request));
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
        socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
      });
    const answer = (text: string): { status: number; contentType: string; body: Record<string, unknown> } => ({
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]),
      contentType: /\r\ncontent-type: ([^\r]*)/i.exec(text)?.[1] ?? '',
      body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>,
    });
    const unknown = answer(await raw('FOO /ip_policies HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(unknown).toMatchObject({ status: 400, contentType: expect.stringMatching(/^application\/json/), body: { error_code: 'bad_request', status_code: 400 } });
    const huge = answer(await raw(`GET /ip_policies HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(huge).toMatchObject({ status: 431, body: { error_code: 'headers_too_large', status_code: 431 } });
    expect(Object.keys(huge.body).sort()).toEqual(['details', 'error_code', 'msg', 'status_code']);
  });

  it('an over-long path id should be a 404 naming nothing, as any malformed id is, not a router 414', async () => {
    const id = `ipp_${'x'.repeat(200)}`;
    const r = await h.call('GET', `/ip_policies/${id}`);
    expectErrorBody(r, 404, 'not_found');
    expect(r.json.details).toEqual({ resource: 'IP policy', id });
  });

  it('a method a path does not take should be 405 with Allow listing the ones it takes, QUERY and TRACE included', async () => {
    const key = (await h.call('POST', '/api_keys', { body: {} })).json;
    for (const [method, path, allow] of [
      ['QUERY', '/api_keys', 'GET, HEAD, POST'],
      ['TRACE', '/api_keys', 'GET, HEAD, POST'],
      ['PUT', '/api_keys', 'GET, HEAD, POST'],
      ['QUERY', `/api_keys/${key.id}`, 'DELETE, GET, HEAD, PATCH'],
      ['OPTIONS', `/api_keys/${key.id}`, 'DELETE, GET, HEAD, PATCH'],
      ['POST', '/edges/tcp/edgtcp_01ARZ3NDEKTSV4RRFFQ69G5FAV/ip_restriction', 'DELETE, GET, HEAD, PUT'],
    ] as const) {
      const r = await send(method, path, h.token);
      expect([method, path, r.status, r.json.error_code, r.allow]).toEqual([method, path, 405, 'method_not_allowed', allow]);
      expect(r.json.details).toMatchObject({ method, allowed: allow.split(', ') });
    }
  });

  it('a wrong method should be 401 without a token on an authenticated path, and 405 at once on the public API description', async () => {
    expect((await send('TRACE', '/api_keys')).json.error_code).toBe('unauthorized');
    const r = await send('QUERY', '/openapi.json');
    expect([r.status, r.json.error_code, r.allow]).toEqual([405, 'method_not_allowed', 'GET, HEAD']);
  });
});
