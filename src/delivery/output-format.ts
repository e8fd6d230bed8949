// How a batch of events is written as bodies or files: NDJSON, CSV or a JSON array, then gzip or not, each
// body within its limit (docs/subscription-controls.md "Output options"). The envelope's bytes are the same
// in every form; only the framing and the compression differ.
import { gzipSync } from 'node:zlib';
import { TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, type FieldType } from '../events/catalog.js';
import type { Envelope } from '../events/envelope.js';
import { copyPayload, payloadSize, type DeliveryItem, type ItemFailure } from './contract.js';
import { DeliveryError } from './errors.js';

export const OUTPUT_TYPES = ['ndjson', 'csv', 'json_array'] as const;
export type OutputType = (typeof OUTPUT_TYPES)[number];
export const COMPRESSIONS = ['gzip', 'none'] as const;
export type Compression = (typeof COMPRESSIONS)[number];

const NEWLINE = 0x0a;

/** One envelope per line, each line ending in "\n": the payloads copied once. */
export function ndjson(batch: readonly DeliveryItem[]): Buffer {
  let total = batch.length;
  for (const item of batch) total += payloadSize(item);
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const item of batch) {
    at += copyPayload(item, out, at);
    out[at++] = NEWLINE;
  }
  return out;
}

/** The envelopes as one JSON array: "[", the payloads joined by ",", "]". */
export function jsonArray(batch: readonly DeliveryItem[]): Buffer {
  let total = 2 + Math.max(0, batch.length - 1);
  for (const item of batch) total += payloadSize(item);
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  out[at++] = 0x5b;
  batch.forEach((item, i) => {
    if (i > 0) out[at++] = 0x2c;
    at += copyPayload(item, out, at);
  });
  out[at++] = 0x5d;
  return out;
}

/** A catalogue field's place in a traffic event's object: a selected leaf, or a group of them. */
interface FieldNode {
  readonly type?: FieldType;
  readonly children: Map<string, FieldNode>;
}

/** The catalogue's fields of each traffic event type as a tree of their dotted names. */
const FIELD_TREES = new Map<string, FieldNode>(
  TRAFFIC_EVENT_TYPES.map((eventType) => {
    const root: FieldNode = { children: new Map() };
    for (const spec of TRAFFIC_FIELDS[eventType]) {
      let node = root;
      for (const part of spec.name.split('.')) {
        let child = node.children.get(part);
        if (child === undefined) node.children.set(part, (child = { children: new Map() }));
        node = child;
      }
      (node as { type?: FieldType }).type = spec.type;
    }
    return [eventType, root];
  }),
);

/**
 * The columns of one event and their values, by the catalogue, never by the data: the envelope's own
 * fields, then a traffic event's selected fields by their dotted names (`object.conn.client_ip`), walked
 * along the catalogue (the projection writes every selected field, null when absent, and nothing else).
 * A map or list field (headers, logs) is one column holding its JSON. Any other event's object (an audit
 * event's resource, a test event) is one column, `object`, holding its JSON: its shape is the resource's,
 * which the catalogue does not list leaf by leaf.
 */
function eventColumns(envelope: Envelope, into: Map<string, unknown>): void {
  into.set('event_id', envelope.event_id);
  into.set('event_type', envelope.event_type);
  into.set('event_timestamp', envelope.event_timestamp);
  const { principal } = envelope;
  if (principal === null || typeof principal !== 'object') into.set('principal', null);
  else for (const key of PRINCIPAL_KEYS) into.set(`principal.${key}`, principal[key]);
  const tree = FIELD_TREES.get(envelope.event_type);
  if (tree === undefined) into.set('object', envelope.object);
  else selectedFields(envelope.object, tree, 'object', into);
}

const PRINCIPAL_KEYS = ['type', 'id', 'uri'] as const;

function selectedFields(value: unknown, node: FieldNode, name: string, into: Map<string, unknown>): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, child] of node.children) {
    if (!Object.hasOwn(value, key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (child.type === undefined) selectedFields(v, child, `${name}.${key}`, into);
    else into.set(`${name}.${key}`, v);
  }
}

/** What a spreadsheet would read as the start of a formula (OWASP "CSV Injection"): = + - @, tab, CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field, RFC 4180: a field holding a comma, a double quote, CR or LF is quoted, its quotes doubled.
 * A string that starts as a formula would is written after a single quote and quoted (OWASP "CSV
 * Injection"), so a spreadsheet shows it as text; a number is written as its JSON text, never changed.
 */
function csvField(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = '';
  else if (typeof value === 'string') {
    if (FORMULA_START.test(value)) return `"'${value.replaceAll('"', '""')}"`;
    text = value;
  } else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** How large one body may be, in bytes before compression. */
export interface BodyLimit {
  /** A body is cut before the event that would take it past this many bytes. */
  readonly bytes: number;
  /** The most a body holding one event may be (object_store: an event above its upload limit is an object of its own); default `bytes`. */
  readonly oneEvent?: number;
}

/** A body and the events it holds. */
export interface Body {
  readonly bytes: Buffer;
  readonly items: readonly DeliveryItem[];
}

/** A batch in bodies within their limit, and the events whose part alone would pass it (RECORD_TOO_LARGE). */
export interface EncodedBatch {
  readonly bodies: readonly Body[];
  readonly tooLarge: readonly ItemFailure[];
}

/**
 * Cuts a batch into bodies by each event's part of a body (a CSV line, an NDJSON line), its size checked
 * against the limit before the part is added, so no body is ever built past it.
 */
class BodyCutter<Part> {
  private readonly bodies: Body[] = [];
  private readonly tooLarge: ItemFailure[] = [];
  private parts: Part[] = [];
  private items: DeliveryItem[] = [];
  private size: number;

  constructor(
    private readonly limit: BodyLimit,
    /** Bytes every body has besides its events' parts (a CSV header, a JSON array's bracket). */
    private readonly frame: number,
    private readonly assemble: (items: readonly DeliveryItem[], parts: readonly Part[]) => Buffer,
    private readonly what: string,
  ) {
    this.size = frame;
  }

  add(item: DeliveryItem, size: number, part: Part): void {
    if (this.items.length > 0 && this.size + size > this.limit.bytes) this.cut();
    const most = this.items.length === 0 ? Math.max(this.limit.bytes, this.limit.oneEvent ?? 0) : this.limit.bytes;
    if (this.size + size > most) {
      const message = `The event is ${this.frame + size} bytes as ${this.what} with its body's framing, past the destination's ${most} bytes a body.`;
      this.tooLarge.push({ item, error: new DeliveryError('RECORD_TOO_LARGE', message) });
      return;
    }
    this.parts.push(part);
    this.items.push(item);
    this.size += size;
  }

  finish(): EncodedBatch {
    if (this.items.length > 0) this.cut();
    return { bodies: this.bodies, tooLarge: this.tooLarge };
  }

  private cut(): void {
    this.bodies.push({ bytes: this.assemble(this.items, this.parts), items: this.items });
    this.parts = [];
    this.items = [];
    this.size = this.frame;
  }
}

const CRLF = '\r\n';

/**
 * CSV per RFC 4180: a header line naming the columns, then one line per event, every line ending in CRLF.
 * The columns are the catalogue's (eventColumns), in the order they first appear in the batch: at most the
 * envelope's and the catalogue's fields, whatever names the records' headers hold; an event without a
 * column leaves its field empty. Each body of a batch has the batch's header.
 */
function csvBodies(batch: readonly DeliveryItem[], limit: BodyLimit): EncodedBatch {
  const rows = batch.map((item) => {
    const columns = new Map<string, unknown>();
    eventColumns(item.envelope ?? (JSON.parse(item.payload.toString('utf8')) as Envelope), columns);
    return columns;
  });
  const columns = [...new Set(rows.flatMap((r) => [...r.keys()]))];
  const header = Buffer.from(columns.map(csvField).join(',') + CRLF, 'utf8');
  const cutter = new BodyCutter<Buffer>(limit, header.length, (_items, lines) => Buffer.concat([header, ...lines]), 'a CSV line');
  rows.forEach((row, i) => {
    const line = Buffer.from(columns.map((c) => csvField(row.get(c))).join(',') + CRLF, 'utf8');
    cutter.add(batch[i] as DeliveryItem, line.length, line);
  });
  return cutter.finish();
}

/**
 * NDJSON or a JSON array, cut by the same rule; each event's part is its payload and its newline or comma
 * (a JSON array's bracket and one comma fewer make its frame 1), counted without building the payload.
 */
function jsonBodies(batch: readonly DeliveryItem[], limit: BodyLimit, type: 'ndjson' | 'json_array'): EncodedBatch {
  const write = type === 'ndjson' ? ndjson : jsonArray;
  const cutter = new BodyCutter<undefined>(limit, type === 'ndjson' ? 0 : 1, (items) => write(items), type === 'ndjson' ? 'an NDJSON line' : 'a JSON array element');
  for (const item of batch) cutter.add(item, payloadSize(item) + 1, undefined);
  return cutter.finish();
}

/** The whole batch as one CSV body, however large (for tests and tools; writers use encodeBatch). */
export function csv(batch: readonly DeliveryItem[]): Buffer {
  const { bodies } = csvBodies(batch, { bytes: Number.MAX_SAFE_INTEGER });
  return bodies[0]?.bytes ?? Buffer.alloc(0);
}

export const CONTENT_TYPES: Record<OutputType, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  json_array: 'application/json',
};

/**
 * A batch as bodies in `type`, each within `limit` before compression (checked as it is built), then
 * compressed with `compression`. A batch the batcher cut to the writer's limits is one body as NDJSON or
 * a JSON array; as CSV it may be more (its header and quoting).
 */
export function encodeBatch(batch: readonly DeliveryItem[], type: OutputType, compression: Compression, limit: BodyLimit): EncodedBatch {
  const plain = type === 'csv' ? csvBodies(batch, limit) : jsonBodies(batch, limit, type);
  if (compression !== 'gzip') return plain;
  return { bodies: plain.bodies.map((b) => ({ bytes: gzipSync(b.bytes), items: b.items })), tooLarge: plain.tooLarge };
}
