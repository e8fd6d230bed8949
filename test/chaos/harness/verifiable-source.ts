// The verifiable source of the fault scenarios: raw traffic records that carry a sequence number, produced
// at a steady rate, and the facts about each record that the scenarios' expectations are computed from.
import type { Producer } from '@platformatic/kafka';
import type { TrafficEventType } from '../../../src/events/catalog.js';
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import type { WireForm } from '../../../src/records/record-types.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { toolProducer, toolRecord, type ToolMessage as Message } from '../../support/kafka-tools.js';
import { sleep } from './timing.js';

/** What the scenarios' reference predicates may look at: the sequence number and the filterable fields. */
export interface RecordFacts {
  readonly seq: number;
  readonly type: TrafficEventType;
  readonly serverPort: number;
  readonly serverName: string;
}

export interface SourceShape {
  /** Overrides conn.server_port (the sample records use 443 nine times in ten, else 80). */
  readonly serverPort?: (seq: number) => number;
  /** Bytes of padding in an http record's http.request.user_agent, to make large events (0: as sampled). */
  readonly userAgentBytes?: (seq: number) => number;
  /** Overrides conn.server_name, whose reserved domain or TCP address says which account owns the record. */
  readonly serverName?: (seq: number) => string;
  /** Replaces an http record's http.request.headers (as sampled when absent or undefined). */
  readonly requestHeaders?: (seq: number) => Record<string, string[]> | undefined;
}

export interface SourceTopics {
  readonly http: string;
  readonly tcp: string;
}

type Nested = Record<string, Record<string, unknown>>;

// Every form on both types: seq % 2 picks the type and seq % 3 the form, so all six pairs occur.
const FORMS: readonly WireForm[] = ['avro', 'confluent', 'json'];

/** Even sequence numbers are http_request_complete.v0 records, odd ones tcp_connection_closed.v0. */
export function typeOf(seq: number): TrafficEventType {
  return seq % 2 === 0 ? 'http_request_complete.v0' : 'tcp_connection_closed.v0';
}

/**
 * The record with sequence number `seq`. An http record carries it in http.request.url.path ("/seq/N"),
 * a tcp record in conn.bytes_in, so every projection that selects that field identifies its record.
 */
export function sourceRecord(seq: number, shape: SourceShape = {}): { facts: RecordFacts; record: Nested } {
  const type = typeOf(seq);
  const record = structuredClone(seededRecord(type, seq)) as Nested;
  const conn = record.conn as Record<string, unknown>;
  if (shape.serverPort !== undefined) conn.server_port = shape.serverPort(seq);
  if (shape.serverName !== undefined) conn.server_name = shape.serverName(seq);
  if (type === 'http_request_complete.v0') {
    const url = (record.http as { request: { url: Record<string, unknown> } }).request.url;
    url.path = `/seq/${seq}`;
    url.raw = `https://${String(conn.server_name)}/seq/${seq}`;
    const pad = shape.userAgentBytes?.(seq) ?? 0;
    if (pad > 0) (record.http as { request: Record<string, unknown> }).request.user_agent = 'u'.repeat(pad);
    const headers = shape.requestHeaders?.(seq);
    if (headers !== undefined) (record.http as { request: Record<string, unknown> }).request.headers = headers;
  } else {
    conn.bytes_in = seq;
  }
  return { facts: { seq, type, serverPort: Number(conn.server_port), serverName: String(conn.server_name) }, record };
}

/** The Kafka message of a record, in one of the three producer forms. */
export function sourceMessage(seq: number, record: Nested): Message {
  const encoded = encodeRecord(typeOf(seq), record, FORMS[seq % FORMS.length] as WireForm);
  return { key: String(seq), value: encoded.value, headers: { ...encoded.headers } };
}

/** The sequence number a delivered envelope carries, or undefined when it carries none. */
export function seqOfEnvelope(envelope: unknown): number | undefined {
  const e = envelope as { event_type?: string; object?: { http?: { request?: { url?: { path?: unknown } } }; conn?: { bytes_in?: unknown } } };
  if (e.event_type === 'http_request_complete.v0') {
    const path = e.object?.http?.request?.url?.path;
    const m = typeof path === 'string' ? /^\/seq\/(\d+)$/.exec(path) : null;
    return m ? Number(m[1]) : undefined;
  }
  if (e.event_type === 'tcp_connection_closed.v0') {
    const n = e.object?.conn?.bytes_in;
    return typeof n === 'number' ? n : undefined;
  }
  return undefined;
}

/** The fields each scenario subscription selects: enough to read the sequence number back. */
export const SEQ_FIELDS: Readonly<Record<TrafficEventType, readonly string[]>> = {
  'http_request_complete.v0': ['http.request.url.path', 'conn.server_port'],
  'tcp_connection_closed.v0': ['conn.bytes_in', 'conn.server_port'],
};

export interface ProduceOptions {
  /** Records per second; unlimited when absent. */
  readonly ratePerSec?: number;
  /** Records per send request. Default 500. */
  readonly chunk?: number;
  /** Stops between chunks when aborted. */
  readonly signal?: AbortSignal;
  /** Extra messages to put in the stream: called once per chunk with the chunk's first sequence number. */
  readonly interleave?: (firstSeq: number) => Array<{ topic: string; message: Message }>;
}

/**
 * Produces records and remembers the facts of each one acknowledged by the broker. The producer is
 * idempotent, so its own retries cannot put a record on the topic twice: a duplicate seen at a
 * destination comes from the service.
 */
export class VerifiableSource {
  readonly facts: RecordFacts[] = [];
  /** Kafka timestamp (the producer's clock, CreateTime) of each acknowledged record, by sequence number. */
  readonly timestamps: number[] = [];
  private producer: Producer | undefined;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly topics: SourceTopics,
    private readonly shape: SourceShape = {},
  ) {}

  get produced(): number {
    return this.facts.length;
  }

  async produce(from: number, to: number, opts: ProduceOptions = {}): Promise<void> {
    const producer = await this.connect();
    const chunk = opts.chunk ?? 500;
    const started = Date.now();
    for (let first = from; first < to; first += chunk) {
      if (opts.signal?.aborted === true) return;
      const last = Math.min(to, first + chunk);
      const http: Message[] = [];
      const tcp: Message[] = [];
      const facts: RecordFacts[] = [];
      const now = Date.now();
      for (let seq = first; seq < last; seq++) {
        const { facts: f, record } = sourceRecord(seq, this.shape);
        const message = { ...sourceMessage(seq, record), timestamp: now };
        (f.type === 'http_request_complete.v0' ? http : tcp).push(message);
        facts.push(f);
      }
      const extra = opts.interleave?.(first) ?? [];
      const messages = [
        ...http.map((m) => toolRecord(this.topics.http, m)),
        ...tcp.map((m) => toolRecord(this.topics.tcp, m)),
        ...extra.map((e) => toolRecord(e.topic, e.message)),
      ];
      await producer.send({ messages });
      for (const f of facts) {
        this.facts[f.seq] = f;
        this.timestamps[f.seq] = now;
      }
      if (opts.ratePerSec !== undefined) {
        const due = started + ((last - from) / opts.ratePerSec) * 1000;
        if (due > Date.now()) await sleep(due - Date.now());
      }
    }
  }

  /** The sequence numbers produced so far whose facts satisfy `predicate`. */
  select(predicate: (f: RecordFacts) => boolean): number[] {
    const out: number[] = [];
    for (const f of this.facts) if (f !== undefined && predicate(f)) out.push(f.seq);
    return out;
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = undefined;
    await p?.close();
  }

  private async connect(): Promise<Producer> {
    if (this.producer !== undefined) return this.producer;
    const producer = toolProducer(this.kafka.brokers, 'chaos-source');
    await producer.initIdempotentProducer({});
    this.producer = producer;
    return producer;
  }
}
