import { readFileSync, readdirSync } from 'node:fs';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { AUDIT_KINDS, FILTERABLE, TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, fieldOf, type FieldType, type TrafficEventType } from '../../../src/events/catalog.js';
import { prefixSchema } from '../../../src/records/avro-record.js';
import { AUDIT_PAYLOAD_SCHEMAS } from '../../../src/records/audit-decoder.js';
import type { AvroSchema } from '../../../src/records/schema-registry.js';
import { REQUIRED_FIELDS } from './arbitraries.js';

const schemaDir = new URL('../../../schemas/', import.meta.url);
const readJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, schemaDir), 'utf8'));

// The mapping of docs/record-formats.md, written out here independently of the code that reads the schemas.
const AVRO_OF: Record<FieldType, unknown> = {
  string: 'string',
  bool: 'boolean',
  int32: 'int',
  int64: 'long',
  timestamp: { type: 'long', logicalType: 'timestamp-micros' },
  headers: { type: 'map', values: { type: 'array', items: 'string' } },
  logs: { type: 'array', items: { type: 'map', values: 'string' } },
};

interface Flat {
  readonly type: unknown;
  readonly required: boolean;
  readonly default?: unknown;
}

type Node = { type: unknown; name?: string; fields?: { name: string; type: unknown; default?: unknown }[] };

function flatten(record: Node, prefix = '', out = new Map<string, Flat>()): Map<string, Flat> {
  for (const f of record.fields ?? []) {
    const path = prefix === '' ? f.name : `${prefix}.${f.name}`;
    const t = f.type as Node;
    if (typeof t === 'object' && !Array.isArray(t) && t.type === 'record') {
      flatten(t, path, out);
    } else if (Array.isArray(f.type)) {
      expect(f.type, `${path} is a union of null and one type`).toHaveLength(2);
      expect(f.type[0], `${path} lists null first so that its default can be null`).toBe('null');
      out.set(path, { type: f.type[1], required: false, default: f.default });
    } else {
      out.set(path, { type: f.type, required: true });
    }
  }
  return out;
}

describe.each(TRAFFIC_EVENT_TYPES)('the Avro schema of %s', (eventType: TrafficEventType) => {
  const schema = readJson(`${eventType}.avsc`) as Node;
  const flat = flatten(schema);

  it('should have exactly the catalogue fields, nested by their dotted paths', () => {
    expect([...flat.keys()].sort()).toEqual(TRAFFIC_FIELDS[eventType].map((f) => f.name).sort());
  });

  it('should give every field the Avro type of its catalogue type', () => {
    for (const spec of TRAFFIC_FIELDS[eventType]) expect(flat.get(spec.name)?.type, spec.name).toEqual(AVRO_OF[spec.type]);
  });

  it('should make exactly the documented fields required and every other field a union with null defaulting to null', () => {
    const required = [...flat].filter(([, f]) => f.required).map(([name]) => name);
    expect(required.sort()).toEqual([...REQUIRED_FIELDS[eventType]].sort());
    for (const [name, f] of flat) if (!f.required) expect(f.default, name).toBeNull();
  });

  it('should put its filterable fields at its head, led by one that is never empty (which tells plain Avro from a Confluent frame)', () => {
    const filterable = TRAFFIC_FIELDS[eventType].filter((f) => f.filterable).map((f) => f.name);
    const lead = [...flat.keys()].slice(0, filterable.length);
    expect([...lead].sort()).toEqual([...filterable].sort());
    expect(FILTERABLE[lead[0] as string]?.nonEmpty).toBe(true);
    expect(fieldOf(eventType, lead[0] as string)?.type).toBe('string');
  });

  it('should be accepted by avsc, and its prefix schema should read the filterable fields off a full record', () => {
    const full = avro.Type.forSchema(schema as avro.Schema);
    const prefix = avro.Type.forSchema(prefixSchema(schema as AvroSchema) as avro.Schema);
    const sample = full.random();
    const { value } = prefix.decode(full.toBuffer(sample));
    const c = (sample as unknown as { conn: Record<string, unknown> }).conn;
    expect(value).toEqual({ conn: { client_ip: c.client_ip, server_ip: c.server_ip, server_name: c.server_name, server_port: c.server_port } });
  });
});

describe('the envelope schema', () => {
  it('should carry the five envelope fields with a timestamp-micros event_timestamp', () => {
    const schema = readJson('envelope.avsc') as Node;
    expect(schema.fields?.map((f) => f.name)).toEqual(['event_id', 'event_type', 'event_timestamp', 'principal', 'object']);
    expect(schema.fields?.[2]?.type).toEqual({ type: 'long', logicalType: 'timestamp-micros' });
    expect(() => avro.Type.forSchema(schema as avro.Schema)).not.toThrow();
  });
});

describe('the audit payload schemas', () => {
  it('should name a schema file that exists for every audit kind, for agent sessions and for destination health', () => {
    const files = new Set(readdirSync(new URL('audit/', schemaDir)));
    expect(Object.keys(AUDIT_PAYLOAD_SCHEMAS).sort()).toEqual([...AUDIT_KINDS, 'agent_session', 'event_destination_health'].sort());
    for (const file of Object.values(AUDIT_PAYLOAD_SCHEMAS)) expect(files.has(file), file).toBe(true);
  });

  it('should give a payload of its own to every kind that docs/events.md or this service defines, and any object to the rest', () => {
    const own = ['agent_session', 'event_destination_health', 'api_key', 'certificate_authority', 'domain', 'event_destination', 'event_subscription', 'ip_policy', 'ip_policy_rule', 'ip_restriction', 'replay', 'tcp_address'];
    for (const [kind, file] of Object.entries(AUDIT_PAYLOAD_SCHEMAS)) {
      expect(file === 'unspecified.schema.json', kind).toBe(!own.includes(kind));
    }
    expect(readJson('audit/unspecified.schema.json')).toMatchObject({ type: 'object' });
    expect((readJson('audit/unspecified.schema.json') as { properties?: unknown }).properties).toBeUndefined();
  });
});
