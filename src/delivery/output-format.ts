// How a batch of events is written as one body or file: NDJSON, CSV or a JSON array, then gzip or not
// (docs/subscription-controls.md "Output options"). The envelope's bytes are the same in every form; only
// the framing and the compression differ.
import { gzipSync } from 'node:zlib';
import { copyPayload, payloadSize, type DeliveryItem } from './contract.js';

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

/**
 * The leaves of an envelope by their dotted names (`object.conn.client_ip`): an object's fields are
 * flattened, an empty object or null is a leaf of its own (written empty), and an array is one leaf
 * written as its JSON text. A key's dots and backslashes are escaped with a backslash (a log value's
 * `a.b` is `a\.b`), so no two leaves share a name.
 */
function flatten(value: unknown, name: string, into: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) {
      const key = /[.\\]/.test(k) ? k.replace(/[.\\]/g, '\\$&') : k;
      flatten(v, name === '' ? key : `${name}.${key}`, into);
    }
  } else {
    into.set(name, value);
  }
}

/** RFC 4180: a field holding a comma, a double quote, CR or LF is quoted, its quotes doubled. */
function csvField(value: unknown): string {
  let text: string;
  // null, missing and an empty object (the only object flatten() leaves whole) are empty fields.
  if (value === null || value === undefined || (typeof value === 'object' && !Array.isArray(value))) text = '';
  else if (typeof value === 'string') text = value;
  else if (Array.isArray(value)) text = JSON.stringify(value);
  else text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * CSV per RFC 4180: a header line naming the columns, then one line per event, every line ending in CRLF.
 * The columns are the envelope's leaves by dotted name, in the order they first appear in the batch; an
 * event without a column leaves its field empty.
 */
export function csv(batch: readonly DeliveryItem[]): Buffer {
  const rows = batch.map((item) => {
    const leaves = new Map<string, unknown>();
    flatten(item.envelope ?? JSON.parse(item.payload.toString('utf8')), '', leaves);
    return leaves;
  });
  const columns = [...new Set(rows.flatMap((r) => [...r.keys()]))];
  const lines = [columns.map(csvField).join(','), ...rows.map((r) => columns.map((c) => csvField(r.get(c))).join(','))];
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
}

const WRITERS: Record<OutputType, (batch: readonly DeliveryItem[]) => Buffer> = { ndjson, csv, json_array: jsonArray };

export const CONTENT_TYPES: Record<OutputType, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  json_array: 'application/json',
};

/** A batch as one body in `type`, compressed with `compression`. */
export function encodeBatch(batch: readonly DeliveryItem[], type: OutputType, compression: Compression): Buffer {
  const plain = WRITERS[type](batch);
  return compression === 'gzip' ? gzipSync(plain) : plain;
}
