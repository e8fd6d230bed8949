import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRAFFIC_FIELDS } from '../../../src/events/catalog.js';
import { projectionKey, projectorFor } from '../../../src/projection/projector.js';

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function countLeaves(obj: unknown): number {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return 1;
  return Object.values(obj).reduce<number>((n, v) => n + countLeaves(v), 0);
}

describe('projector', () => {
  it('should keep only the selected fields, nested by dotted path', () => {
    const record = {
      conn: { client_ip: '10.1.2.3', server_port: 443, server_name: 'a.example.com' },
      http: { request: { method: 'get', url: { path: '/x', host: 'a' } }, response: { status_code: 200 } },
      tls: { version: '1.3' },
    };
    const project = projectorFor(['http.request.url.path', 'conn.client_ip', 'http.response.status_code']);
    expect(project(record)).toEqual({
      conn: { client_ip: '10.1.2.3' },
      http: { request: { url: { path: '/x' } }, response: { status_code: 200 } },
    });
  });

  it('should emit null for a selected field the record lacks', () => {
    expect(projectorFor(['oauth.user.id', 'conn.server_port'])({ conn: { server_port: 80 } })).toEqual({
      oauth: { user: { id: null } },
      conn: { server_port: 80 },
    });
  });

  it('should share one projector between equal field sets in any order', () => {
    expect(projectorFor(['conn.client_ip', 'tls.version'])).toBe(projectorFor(['tls.version', 'conn.client_ip', 'tls.version']));
    expect(projectionKey(['b', 'a', 'b'])).toBe('a,b');
  });

  it('should produce exactly the selected leaves with the record values for any field subset', () => {
    const names = TRAFFIC_FIELDS['http_request_complete.v0'].map((s) => s.name);
    fc.assert(
      fc.property(
        fc.subarray(names, { minLength: 1 }),
        fc.dictionary(fc.constantFrom(...names), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
        (selected, flat) => {
          const record: Record<string, unknown> = {};
          for (const [path, value] of Object.entries(flat)) {
            const parts = path.split('.');
            let cur = record;
            for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
            cur[parts[parts.length - 1] as string] = value;
          }
          const out = projectorFor(selected)(record);
          expect(countLeaves(out)).toBe(selected.length);
          for (const path of selected) expect(getPath(out, path)).toEqual(flat[path] ?? null);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('generated projector', () => {
  it('should copy a field named __proto__ as an own property instead of setting the prototype', () => {
    const out = projectorFor(['a.__proto__', 'a.b'])({ a: JSON.parse('{"__proto__": {"polluted": true}, "b": 1}') as Record<string, unknown> });
    const a = out.a as Record<string, unknown>;
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(Object.keys(a).sort()).toEqual(['__proto__', 'b']);
    expect(JSON.stringify(out)).toBe('{"a":{"__proto__":{"polluted":true},"b":1}}');
  });

  it('should give objects of one field set the same key order for every record', () => {
    const project = projectorFor(['tls.version', 'conn.server_port', 'conn.client_ip']);
    const a = project({ conn: { server_port: 1, client_ip: 'x' }, tls: { version: '1.3' } });
    const b = project({ tls: null, conn: { client_ip: 'y' } });
    expect(JSON.stringify(Object.keys(a))).toBe(JSON.stringify(Object.keys(b)));
    expect(b).toEqual({ conn: { client_ip: 'y', server_port: null }, tls: { version: null } });
  });
});

describe('projection serializer', () => {
  const names = TRAFFIC_FIELDS['http_request_complete.v0'].map((s) => s.name);
  const record = (flat: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [path, value] of Object.entries(flat)) {
      const parts = path.split('.');
      let cur = out;
      for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
      cur[parts[parts.length - 1] as string] = value;
    }
    return out;
  };

  it('should write exactly JSON.stringify of the projected object, sharing leaf texts between field sets of one record', () => {
    fc.assert(
      fc.property(
        fc.subarray(names),
        fc.subarray(names),
        fc.dictionary(fc.constantFrom(...names), fc.jsonValue({ maxDepth: 2 })),
        (a, b, flat) => {
          const r = record(flat);
          const cache: (string | undefined)[] = [];
          for (const fields of [a, b]) {
            const p = projectorFor(fields);
            expect(p.serialize(r, cache)).toBe(JSON.stringify(p(r)));
            expect(p.serialize(r, [])).toBe(JSON.stringify(p(r)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('should write null for absent fields and groups, and {} for no fields', () => {
    const p = projectorFor(['oauth.user.id', 'conn.server_port']);
    expect(p.serialize({ conn: { server_port: 80 } }, [])).toBe('{"conn":{"server_port":80},"oauth":{"user":{"id":null}}}');
    expect(projectorFor([]).serialize({ a: 1 }, [])).toBe('{}');
  });
});
