// The OpenAPI document the service serves: the shape schemathesis relies on (operation ids, links from
// every create, the rules beyond each schema) and the request schemas stating what the API accepts.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERRORS } from '../../../src/admin/errors.js';
import { DESTINATION_KINDS } from '../../../src/delivery/destinations/kinds.js';
import { EVENT_TYPES } from '../../../src/events/catalog.js';
import { request, startAdmin, type AdminHarness } from './admin-harness.js';

// ajv-formats is CommonJS with a default export; under NodeNext its default import is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; schema: Json }[];
  requestBody?: { content: { 'application/json': { schema: Json; example?: unknown } } };
  responses: Record<string, { content?: Record<string, { schema: Json }>; links?: Record<string, { operationId: string; parameters?: Record<string, string>; requestBody?: unknown }> }>;
  'x-rules-beyond-schema'?: { error_code: string; rule: string }[];
}

let h: AdminHarness;
let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json> } };
let operations: { method: string; path: string; op: Operation }[];
const byId = (id: string) => operations.find((o) => o.op.operationId === id);
/** A schema, or the named schema its $ref points to. */
const resolve = (s: Json): Json => (typeof s.$ref === 'string' ? (doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] as Json) : s);
const body = (method: string, path: string): Json => resolve(doc.paths[path]?.[method]?.requestBody?.content['application/json'].schema as Json);
const props = (s: Json): Record<string, Json> => Object.fromEntries(Object.entries(resolve(s).properties as Record<string, Json>).map(([k, v]) => [k, resolve(v)]));

beforeAll(async () => {
  h = await startAdmin();
  doc = (await request(h.url, 'GET', '/openapi.json')).json;
  operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method, path, op })));
});
afterAll(async () => {
  await h?.stop();
});

describe('the OpenAPI document', () => {
  it('should be OpenAPI 3.1, whose schemas are the JSON schemas the API validates with, and name each operation once', () => {
    expect(doc.openapi).toBe('3.1.0');
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('should link every create to the read, update and delete of what it created, and every link to an operation that exists', () => {
    const creates = operations.filter((o) => o.method === 'post' && o.op.responses['201'] !== undefined && doc.paths[`${o.path}/{id}`] !== undefined);
    expect(creates.map((c) => c.path).sort()).toEqual(['/accounts', '/api_keys', '/edges/tcp', '/event_destinations', '/event_subscriptions', '/ip_policies', '/ip_policy_rules', '/reserved_addrs', '/reserved_domains']);
    for (const c of creates) {
      const links = Object.values(c.op.responses['201']?.links ?? {});
      // An account cannot be changed once made: it has no update.
      for (const method of ['get', 'patch', 'delete'].filter((m) => doc.paths[`${c.path}/{id}`]?.[m] !== undefined)) {
        const target = doc.paths[`${c.path}/{id}`]?.[method]?.operationId;
        expect(links, `${c.path} -> ${method}`).toContainEqual({ operationId: target, parameters: { id: '$response.body#/id' } });
      }
    }
    for (const o of operations) {
      for (const [status, response] of Object.entries(o.op.responses)) {
        for (const link of Object.values(response.links ?? {})) {
          const target = byId(link.operationId);
          expect(target, `${o.method} ${o.path} ${status} links to ${link.operationId}`).toBeDefined();
          const pathParams = (target?.op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
          expect(Object.keys(link.parameters ?? {}).sort(), link.operationId).toEqual(pathParams.sort());
        }
      }
    }
  });

  it('should list, for each operation, the rules it applies beyond its schema, each with a 4xx code of the catalogue (422 for a check that the destination itself fails)', () => {
    for (const o of operations) {
      const rules = o.op['x-rules-beyond-schema'] ?? [];
      for (const r of rules) expect([400, 413, 422], `${o.method} ${o.path}: ${r.error_code}`).toContain(API_ERRORS[r.error_code as keyof typeof API_ERRORS]?.status);
      if (o.op.requestBody !== undefined) expect(rules.map((r) => r.error_code), `${o.method} ${o.path}`).toContain('payload_too_large');
    }
    expect(byId('createIpPolicyRule')?.op['x-rules-beyond-schema']?.map((r) => r.error_code)).toEqual(expect.arrayContaining(['cidr_has_host_bits', 'unknown_reference', 'field_too_long']));
    expect(byId('createEventSubscription')?.op['x-rules-beyond-schema']?.map((r) => r.error_code)).toEqual(expect.arrayContaining(['invalid_filter', 'duplicate_source_type']));
  });

  it('should state the form of ids, addresses, ranges and hostports, and the values of event types', () => {
    const rule = body('post', '/ip_policy_rules');
    expect(props(rule).ip_policy_id).toMatchObject({ pattern: '^ipp_[0-9A-HJKMNP-TV-Z]{26}$', 'x-error': { code: 'invalid_id' } });
    expect(props(rule).cidr).toMatchObject({ pattern: expect.any(String), not: expect.any(Object), 'x-error': { code: 'invalid_cidr' } });
    const ip = byId('getIpRestrictionDecision')?.op.parameters?.find((p) => p.name === 'ip');
    expect(ip?.schema).toMatchObject({ pattern: expect.any(String), 'x-error': { code: 'invalid_ip' } });
    expect(byId('getApiKey')?.op.parameters?.find((p) => p.name === 'id')?.schema).toMatchObject({ pattern: '^ak_[0-9A-HJKMNP-TV-Z]{26}$' });
    expect(props(body('post', '/edges/tcp')).hostports).toMatchObject({ uniqueItems: true, items: { pattern: expect.any(String), 'x-error': { code: 'invalid_hostport' } } });
    const types = (body('post', '/event_subscriptions/{id}/sources').oneOf as Json[]).flatMap((b) => props(b).type?.enum as string[]);
    // The variant is told by its type: each type maps to the one variant whose enum holds it.
    const { propertyName, mapping } = body('post', '/event_subscriptions/{id}/sources').discriminator as { propertyName: string; mapping: Record<string, string> };
    expect(propertyName).toBe('type');
    for (const t of EVENT_TYPES) expect(props({ $ref: mapping[t] }).type?.enum, t).toContain(t);
    expect(types.sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('should leave out of an update what cannot change, and state that a target sets exactly one kind', () => {
    expect(Object.keys(props(body('patch', '/ip_policy_rules/{id}')))).not.toEqual(expect.arrayContaining(['action']));
    expect(Object.keys(props(body('patch', '/ip_policy_rules/{id}')))).not.toContain('ip_policy_id');
    expect(Object.keys(props(body('patch', '/event_subscriptions/{id}/sources/{type}')))).toEqual(['fields', 'filter', 'sample_rate']);
    for (const [method, path] of [
      ['post', '/event_destinations'],
      ['patch', '/event_destinations/{id}'],
    ] as const) {
      // One optional property per kind, each the kind's named schema; exactly one is a rule beyond the schema.
      const target = props(body(method, path)).target as Json;
      expect(Object.keys(target.properties as Json)).toEqual(DESTINATION_KINDS.map((k) => k.name));
      expect(Object.values(target.properties as Record<string, Json>).every((p) => typeof p.$ref === 'string')).toBe(true);
      expect(byId(method === 'post' ? 'createEventDestination' : 'updateEventDestination')?.op['x-rules-beyond-schema']?.map((r) => r.error_code)).toContain('invalid_target_kind');
    }
  });

  it('should name every JSON body, request and response, under components/schemas, and show an example of each request body that its schema accepts', () => {
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    for (const o of operations) {
      const media = [o.op.requestBody, ...Object.values(o.op.responses)].flatMap((m) => Object.entries(m?.content ?? {}).filter(([type]) => type === 'application/json'));
      for (const [, m] of media) expect(m.schema.$ref, `${o.method} ${o.path}`).toMatch(/^#\/components\/schemas\/[A-Z][A-Za-z]+$/);
      const request = o.op.requestBody?.content['application/json'];
      if (request === undefined) continue;
      expect(request.example, `${o.op.operationId} has an example`).toBeDefined();
      const valid = ajv.compile({ ...request.schema, components: doc.components });
      expect(valid(request.example), `${o.op.operationId}: ${ajv.errorsText(valid.errors)}`).toBe(true);
    }
  });

  it('should name no file of the repository in any text, only what a user of the API can reach', () => {
    const texts: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') texts.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(doc);
    expect(texts.filter((t) => /\.md\b|\bsrc\/|\.ts\b/.test(t))).toEqual([]);
  });
});
