// The shape of a raw record as a tree of groups and typed leaves, read from its Avro schema and the event catalogue.
import { fieldOf, type FieldType, type TrafficEventType } from '../events/catalog.js';
import type { AvroComplexType, AvroSchema } from './schema-registry.js';

export interface LeafPlan {
  readonly kind: 'leaf';
  readonly name: string;
  /** The dotted name of docs/events.md, e.g. "http.request.url.host". */
  readonly path: string;
  readonly type: FieldType;
  /** A required field is a plain Avro type; an optional one is a union with null (default null). */
  readonly required: boolean;
}

export interface GroupPlan {
  readonly kind: 'group';
  readonly name: string;
  readonly path: string;
  readonly children: readonly PlanNode[];
  readonly childNames: ReadonlySet<string>;
  /** True when some leaf below is required, so the group cannot be left out of a JSON record. */
  readonly required: boolean;
}

export type PlanNode = LeafPlan | GroupPlan;

export interface RecordPlan {
  readonly eventType: TrafficEventType;
  readonly root: GroupPlan;
  readonly leaves: readonly LeafPlan[];
}

export function isRecord(t: AvroSchema): t is AvroComplexType {
  return typeof t === 'object' && !Array.isArray(t) && (t as AvroComplexType).type === 'record';
}

/**
 * The plan of a record schema. Nested Avro records are groups (always present, never null); every
 * other field is a leaf whose type comes from the catalogue, so a field the catalogue lacks is an error.
 */
export function buildRecordPlan(eventType: TrafficEventType, schema: AvroSchema): RecordPlan {
  const leaves: LeafPlan[] = [];
  const group = (name: string, path: string, t: AvroSchema): GroupPlan => {
    if (!isRecord(t)) throw new Error(`${path || eventType}: expected an Avro record`);
    const children = (t.fields ?? []).map((f): PlanNode => {
      const childPath = path === '' ? f.name : `${path}.${f.name}`;
      if (isRecord(f.type)) return group(f.name, childPath, f.type);
      const spec = fieldOf(eventType, childPath);
      if (spec === undefined) throw new Error(`${childPath} is in the Avro schema but not in the catalogue of ${eventType}`);
      const optional = Array.isArray(f.type) && f.type.includes('null');
      const leaf: LeafPlan = { kind: 'leaf', name: f.name, path: childPath, type: spec.type, required: !optional };
      leaves.push(leaf);
      return leaf;
    });
    return {
      kind: 'group',
      name,
      path,
      children,
      childNames: new Set(children.map((c) => c.name)),
      required: children.some((c) => c.required),
    };
  };
  return { eventType, root: group('', '', schema), leaves };
}
