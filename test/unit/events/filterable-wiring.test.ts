// What the catalogue's FILTERABLE drives, checked against the catalogue itself: the CEL environment, the
// matcher's indexed fields and their readers, and the cheap read of a record in every wire form. A field
// added to FILTERABLE is taken up by all of them, or one of these tests fails.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../src/cel/compile.js';
import { EVENT_VARIABLE, filterableFieldNames } from '../../../src/cel/filter-env.js';
import { INDEXED_FIELDS } from '../../../src/cel/indexed-fields.js';
import { FILTERABLE, TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, filterableFieldsOf } from '../../../src/events/catalog.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import type { WireForm } from '../../../src/records/record-types.js';
import { TrafficGenerator } from '../../../src/traffic/generator.js';

const at = (root: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown> | undefined)?.[p], root);

describe('the filterable fields of the catalogue', () => {
  it('should each be a field of some traffic event type', () => {
    for (const name of Object.keys(FILTERABLE)) {
      expect(TRAFFIC_EVENT_TYPES.some((t) => TRAFFIC_FIELDS[t].some((f) => f.name === name)), name).toBe(true);
    }
  });

  it('should be exactly what a filter may read, and nothing else of the event', () => {
    for (const t of TRAFFIC_EVENT_TYPES) {
      const names = filterableFieldsOf(t).map((f) => f.name);
      expect(filterableFieldNames(t)).toEqual(names.map((n) => `${EVENT_VARIABLE}.${n}`));
      for (const f of TRAFFIC_FIELDS[t]) {
        const result = compile(`has(${EVENT_VARIABLE}.${f.name})`, t);
        expect(result.ok, `${t} ${f.name}`).toBe(names.includes(f.name));
      }
    }
  });

  it('should each be an indexed field of the matcher, in the catalogue order, reading the value a record holds', () => {
    expect(INDEXED_FIELDS.map((f) => f.path)).toEqual(Object.keys(FILTERABLE));
    const generator = new TrafficGenerator({ seed: 5 });
    for (let i = 0; i < 50; i++) {
      const { record } = generator.next();
      for (const f of INDEXED_FIELDS) expect(f.read(record), f.path).toBe(at(record, f.path));
    }
    for (const f of INDEXED_FIELDS) expect(f.read({}), f.path).toBeUndefined();
  });

  it('should be what the cheap read of a record yields, in every wire form', () => {
    const decoder = createRecordDecoder();
    const generator = new TrafficGenerator({ seed: 9 });
    for (let i = 0; i < 30; i++) {
      const { eventType, record } = generator.next();
      const expected = Object.fromEntries(filterableFieldsOf(eventType).map((f) => [f.name, at(record, f.name)]));
      for (const form of ['avro', 'confluent', 'json'] as WireForm[]) {
        const result = decoder.decodeFilterable(eventType, encodeRecord(eventType, record, form));
        if (!result.ok) throw new Error(`${form}: ${result.code} ${result.message}`);
        const got = Object.fromEntries(filterableFieldsOf(eventType).map((f) => [f.name, at(result.filterable, f.name)]));
        expect(got, form).toEqual(expected);
      }
    }
  });

  it('should refuse, in the cheap read, a JSON record missing any filterable field, naming it', () => {
    const decoder = createRecordDecoder();
    const { eventType, record } = new TrafficGenerator({ seed: 3, httpShare: 1 }).next();
    for (const f of filterableFieldsOf(eventType)) {
      const copy = structuredClone(record) as Record<string, Record<string, unknown>>;
      const [group, leaf] = f.name.split('.') as [string, string];
      delete (copy[group] as Record<string, unknown>)[leaf];
      const result = decoder.decodeFilterable(eventType, { value: Buffer.from(JSON.stringify(copy)), headers: { 'content-type': 'application/json' } });
      expect(result.ok ? undefined : result.message, f.name).toBe(`${f.name} is required.`);
    }
  });
});
