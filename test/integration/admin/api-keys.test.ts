// API keys over a real socket and broker: the token only in the creation response, limits,
// and a deleted key's token refused at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from './admin-harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
});
afterAll(async () => {
  await h?.stop();
});

describe('API keys', () => {
  it('the creation response should be the only one that carries the token', async () => {
    const c = await h.call('POST', '/api_keys', { body: { description: 'ci', metadata: '{"owner":"ops"}' } });
    expect(c.status).toBe(201);
    const k = c.json;
    expect(k.token).toMatch(/^eek_[0-9A-Za-z]{43}$/);
    expect(k).toMatchObject({ uri: `${PUBLIC_BASE_URL}/api_keys/${k.id}`, description: 'ci', metadata: '{"owner":"ops"}' });
    expect(k.id).toMatch(/^ak_[0-9A-Z]{26}$/);
    const get = await h.call('GET', `/api_keys/${k.id}`);
    expect(get.json).toEqual({ ...k, token: null });
    const list = await h.call('GET', '/api_keys');
    expect(list.json.api_keys.find((x: { id: string }) => x.id === k.id)).toEqual({ ...k, token: null });
    expect(list.text).not.toContain(k.token);
    const upd = await h.call('PATCH', `/api_keys/${k.id}`, { body: { description: 'ci runner' } });
    expect(upd.json).toEqual({ ...k, description: 'ci runner', token: null });
  });

  it("a new key's token should authenticate, and stop working once the key is deleted", async () => {
    const k = (await h.call('POST', '/api_keys', { body: {} })).json;
    expect((await h.call('GET', '/ip_policies', { token: k.token })).status).toBe(200);
    // A key may delete itself.
    expect((await h.call('DELETE', `/api_keys/${k.id}`, { token: k.token })).status).toBe(204);
    const after = await h.call('GET', '/ip_policies', { token: k.token });
    expect(after.status).toBe(401);
    expect(after.json).toMatchObject({ error_code: 'unauthorized', status_code: 401 });
    expect((await h.call('GET', `/api_keys/${k.id}`)).status).toBe(404);
  });

  it('description and metadata should be limited to 255 and 4096 bytes', async () => {
    const d = await h.call('POST', '/api_keys', { body: { description: 'ß'.repeat(128) } });
    expect(d.json).toMatchObject({ error_code: 'field_too_long', details: { field: 'description', limit: 255, actual: 256, unit: 'bytes' } });
    const m = await h.call('POST', '/api_keys', { body: { metadata: 'x'.repeat(4097) } });
    expect(m.json).toMatchObject({ error_code: 'field_too_long', details: { field: 'metadata' } });
    expect((await h.call('POST', '/api_keys', { body: { description: 'ß'.repeat(127), metadata: 'x'.repeat(4096) } })).status).toBe(201);
  });

  it('a token cannot be chosen or changed: token in a body is an unknown field', async () => {
    const c = await h.call('POST', '/api_keys', { body: { token: 'eek_mine' } });
    expect(c.json).toMatchObject({ error_code: 'unknown_field', details: { field: 'token' } });
    const k = (await h.call('POST', '/api_keys', { body: {} })).json;
    const p = await h.call('PATCH', `/api_keys/${k.id}`, { body: { token: 'eek_mine' } });
    expect(p.json).toMatchObject({ error_code: 'unknown_field', details: { field: 'token' } });
  });

  it('a missing key should be 404 on get, update and delete', async () => {
    const id = 'ak_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    expect((await h.call('GET', `/api_keys/${id}`)).status).toBe(404);
    expect((await h.call('PATCH', `/api_keys/${id}`, { body: {} })).status).toBe(404);
    expect((await h.call('DELETE', `/api_keys/${id}`)).status).toBe(404);
  });
});
