// The Avro schemas the service knows (the files in schemas/) and the table of Confluent schema ids that name them.
import { readFileSync } from 'node:fs';
import { TRAFFIC_EVENT_TYPES, type TrafficEventType } from '../events/catalog.js';

/** An Avro schema as parsed JSON, with the attributes our schemas use. */
export type AvroSchema = string | AvroComplexType | readonly AvroSchema[];

export interface AvroComplexType {
  readonly type: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly doc?: string;
  readonly fields?: readonly AvroField[];
  readonly items?: AvroSchema;
  readonly values?: AvroSchema;
  readonly logicalType?: string;
}

export interface AvroField {
  readonly name: string;
  readonly type: AvroSchema;
  readonly default?: unknown;
  readonly doc?: string;
}

export interface SchemaVersion {
  readonly eventType: TrafficEventType;
  /** 1-based; a new version is a new file, and a producer's Confluent id says which one it wrote with. */
  readonly version: number;
  readonly schema: AvroSchema;
}

export interface SchemaRef {
  readonly eventType: TrafficEventType;
  readonly version: number;
}

// The files live at the top of the repository; this module sits two levels down both in src/ and in dist/.
const SCHEMA_DIR = new URL('../../schemas/', import.meta.url);

export function readSchemaFile(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), 'utf8')) as unknown;
}

/** Every schema version the service can read. Plain Avro and JSON records are read as the latest one. */
export const SCHEMA_VERSIONS: readonly SchemaVersion[] = TRAFFIC_EVENT_TYPES.map((eventType) => ({
  eventType,
  version: 1,
  schema: readSchemaFile(`${eventType}.avsc`) as AvroSchema,
}));

/**
 * The default Confluent schema id table (docs/record-formats.md). Ids are assigned by whichever registry the
 * producers use, so deployments that register our .avsc files elsewhere pass their own table.
 */
export const DEFAULT_SCHEMA_IDS: ReadonlyMap<number, SchemaRef> = new Map([
  [1, { eventType: 'http_request_complete.v0', version: 1 }],
  [2, { eventType: 'tcp_connection_closed.v0', version: 1 }],
]);

export function schemaVersion(ref: SchemaRef): SchemaVersion | undefined {
  return SCHEMA_VERSIONS.find((s) => s.eventType === ref.eventType && s.version === ref.version);
}

export function latestSchema(eventType: TrafficEventType): SchemaVersion {
  let latest: SchemaVersion | undefined;
  for (const s of SCHEMA_VERSIONS) if (s.eventType === eventType && (latest === undefined || s.version > latest.version)) latest = s;
  if (latest === undefined) throw new Error(`no schema for ${eventType}`);
  return latest;
}

/** The schema id of the latest version of an event type in a table, for producers and tests. */
export function schemaIdOf(eventType: TrafficEventType, ids: ReadonlyMap<number, SchemaRef> = DEFAULT_SCHEMA_IDS): number | undefined {
  const { version } = latestSchema(eventType);
  for (const [id, ref] of ids) if (ref.eventType === eventType && ref.version === version) return id;
  return undefined;
}
