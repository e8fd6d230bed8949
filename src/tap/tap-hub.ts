// A worker's live taps (ARCHITECTURE.md "Live tap"): it follows the tap requests topic, and the router
// offers it each record while at least one tap is open. A record a tap's source matches (filter, owner,
// sample) is sent to the tap events topic as the envelope its destination would receive. With no tap
// open, the router's only cost is reading `active`.
import { randomUUID } from 'node:crypto';
import type { TrafficOwners } from '../accounts/traffic-owners.js';
import { compile } from '../cel/compile.js';
import type { CompiledFilter } from '../cel/types.js';
import { isAuditEventType, isTrafficEventType, type TrafficEventType } from '../events/catalog.js';
import { buildPayload, payloadHead, payloadTail, tailBeforeObject } from '../events/envelope.js';
import { formatEventTime, formatObjectTimes, formatTimestampValue, type TimestampFormat } from '../events/timestamp-format.js';
import { pairDigits, recordDigits } from '../ids.js';
import { LazyProducer } from '../kafka/lazy-producer.js';
import type { KafkaClient, OutgoingMessage } from '../kafka/seam.js';
import { WholeTopicReader } from '../kafka/whole-topic-reader.js';
import { projectorFor, type Projector } from '../projection/projector.js';
import type { AuditEvent } from '../records/audit-decoder.js';
import type { FilterableDecoded } from '../records/record-types.js';
import { sampleSeed, sampled, sampleThreshold } from '../subscriptions/sampling.js';
import { createLogger } from '../telemetry/logger.js';
import { TAP_EVENTS_PER_SECOND, TAP_KIND_HEADER, parseTapRequest, type TapMessageKind, type TapOpen } from './tap-protocol.js';

const log = createLogger('tap');

/** A failure to offer records to the taps is logged at most this often. */
const FAILURE_LOG_EVERY_MS = 10_000;

/** Messages wait this long to be sent together. */
const SEND_LINGER_MS = 20;

interface TrafficTap {
  readonly filter: CompiledFilter | undefined;
  readonly project: Projector;
  readonly sampleBelow: number;
}

interface OpenTap {
  readonly id: string;
  readonly owner: string | null;
  readonly expiresAt: number;
  readonly limit: number;
  readonly traffic: ReadonlyMap<TrafficEventType, TrafficTap>;
  readonly audit: ReadonlySet<string>;
  readonly pair: Uint8Array;
  readonly format: TimestampFormat;
  readonly seed: Uint32Array;
  sent: number;
  /** Events sent in the current second, from `windowStart`, and those over the rate not sent. */
  windowStart: number;
  inWindow: number;
  skipped: number;
}

export interface RecordAt {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** The record's Kafka timestamp, in ms. */
  readonly timestampMs: number;
}

export interface TapHubOptions {
  readonly kafka: KafkaClient;
  readonly requestsTopic: string;
  readonly eventsTopic: string;
  readonly owners: TrafficOwners;
  /** This worker's member id in the ingest group, sent in acknowledgements. */
  readonly memberId: () => string | undefined;
}

export class TapHub {
  /** True while a tap is open: the router offers records only then. */
  active = false;
  private readonly taps = new Map<string, OpenTap>();
  private readonly closed = new Set<string>();
  private readonly consumer: WholeTopicReader;
  private readonly producer: LazyProducer;
  private pending: OutgoingMessage[] = [];
  private sendTimer: NodeJS.Timeout | undefined;
  private tick: NodeJS.Timeout | undefined;
  private lastFailureLog = -Infinity;

  constructor(private readonly opts: TapHubOptions) {
    // A group of its own per process: every worker reads every request; offsets are never committed.
    this.consumer = new WholeTopicReader(opts.kafka, { groupId: `edge-tap-reader-${randomUUID()}`, topic: opts.requestsTopic, maxWaitMs: 100 });
    this.producer = new LazyProducer(opts.kafka, { retries: 2 });
  }

  async start(): Promise<void> {
    await this.consumer.start((m) => this.apply(m.value));
    // Once a second: report skipped events and drop expired taps.
    this.tick = setInterval(() => this.onTick(), 1000);
    this.tick.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.tick);
    this.taps.clear();
    this.active = false;
    await this.flush();
    await Promise.allSettled([this.consumer.stop(), this.producer.close()]);
  }

  /**
   * A traffic record the router decoded; the full record is decoded only when a tap's source matches.
   * Never throws: a tap is a view for people, and a failure in it must not touch the record's deliveries.
   */
  offerTraffic(eventType: TrafficEventType, decoded: FilterableDecoded, at: RecordAt): void {
    try {
      this.trafficToTaps(eventType, decoded, at);
    } catch (err) {
      this.failed(err, at);
    }
  }

  /** An audit event of `account` (undefined: nobody's). Never throws, as offerTraffic. */
  offerAudit(event: AuditEvent, account: string | undefined, at: RecordAt): void {
    try {
      this.auditToTaps(event, account, at);
    } catch (err) {
      this.failed(err, at);
    }
  }

  /** Logs a failure to offer a record to the taps, at most once per FAILURE_LOG_EVERY_MS; the taps miss that record. */
  private failed(err: unknown, at: RecordAt): void {
    const now = Date.now();
    if (now - this.lastFailureLog < FAILURE_LOG_EVERY_MS) return;
    this.lastFailureLog = now;
    log.error({ err, topic: at.topic, partition: at.partition, offset: at.offset }, 'A record could not be offered to the open taps; they miss it, and its deliveries go on.');
  }

  private trafficToTaps(eventType: TrafficEventType, decoded: FilterableDecoded, at: RecordAt): void {
    const now = Date.now();
    let owner: string | undefined | null = null;
    let record: Record<string, unknown> | undefined;
    let digits: Uint8Array | undefined;
    for (const tap of this.taps.values()) {
      const source = tap.traffic.get(eventType);
      if (source === undefined || !this.live(tap, now)) continue;
      if (tap.owner !== null) {
        if (owner === null) owner = this.opts.owners.ownerOfRecord(eventType, decoded.filterable);
        if (owner !== tap.owner) continue;
      }
      if (source.filter !== undefined && !safeEvaluate(source.filter, decoded.filterable)) continue;
      digits ??= recordDigits(at.topic, at.partition, at.offset);
      if (!sampled(digits, tap.seed, source.sampleBelow)) continue;
      // Over the rate before any work: a tap costs a worker at most its rate in full decodes.
      if (!this.withinRate(tap, now)) continue;
      if (record === undefined) {
        const full = decoded.full();
        if (!full.ok) return;
        record = full.record;
      }
      this.count(tap);
      const timestamp = formatEventTime(at.timestampMs, tap.format);
      const object = formatObjectTimes(eventType, source.project(record), tap.format);
      this.sendEvent(tap, at, digits, payloadTail(tailBeforeObject(eventType, timestamp, 'null'), JSON.stringify(object)));
    }
  }

  private auditToTaps(event: AuditEvent, account: string | undefined, at: RecordAt): void {
    const now = Date.now();
    for (const tap of this.taps.values()) {
      if (!tap.audit.has(event.event_type) || !this.live(tap, now)) continue;
      if (tap.owner !== null && tap.owner !== account) continue;
      if (!this.withinRate(tap, now)) continue;
      this.count(tap);
      const timestamp = formatTimestampValue(event.event_timestamp, tap.format) as string | number;
      const tail = payloadTail(tailBeforeObject(event.event_type, timestamp, JSON.stringify(event.principal)), JSON.stringify(event.object));
      this.sendEvent(tap, at, recordDigits(at.topic, at.partition, at.offset), tail);
    }
  }

  private live(tap: OpenTap, now: number): boolean {
    if (now < tap.expiresAt && tap.sent < tap.limit) return true;
    this.drop(tap.id);
    return false;
  }

  /** Within this worker's rate for the tap; counts what is over it as skipped. */
  private withinRate(tap: OpenTap, now: number): boolean {
    if (now - tap.windowStart >= 1000) {
      tap.windowStart = now;
      tap.inWindow = 0;
    }
    if (tap.inWindow < TAP_EVENTS_PER_SECOND) return true;
    tap.skipped++;
    return false;
  }

  /** An event the tap sends, within its rate. */
  private count(tap: OpenTap): void {
    tap.inWindow++;
    tap.sent++;
  }

  private sendEvent(tap: OpenTap, at: RecordAt, digits: Uint8Array, tail: Buffer): void {
    this.queue(tap.id, 'event', buildPayload(payloadHead(at.timestampMs), digits, tap.pair, 0, tail));
  }

  private queue(tap: string, kind: TapMessageKind, value: Buffer): void {
    this.pending.push({ key: tap, value, headers: { [TAP_KIND_HEADER]: kind } });
    this.sendTimer ??= setTimeout(() => void this.flush(), SEND_LINGER_MS);
  }

  private async flush(): Promise<void> {
    clearTimeout(this.sendTimer);
    this.sendTimer = undefined;
    const messages = this.pending;
    this.pending = [];
    if (messages.length === 0) return;
    try {
      const producer = await this.producer.get();
      await producer.send(this.opts.eventsTopic, messages);
    } catch (err) {
      // A tap is a view for people, not a delivery: what could not be sent is dropped, and said so.
      await this.producer.reset().catch(() => undefined);
      log.warn({ err, events: messages.length }, 'Tap events could not be sent to the tap topic and were dropped.');
    }
  }

  private apply(value: Buffer | null): void {
    const request = parseTapRequest(value);
    if (request === undefined) return;
    if (request.op === 'close') {
      this.closed.add(request.tap);
      this.drop(request.tap);
      return;
    }
    if (this.closed.has(request.tap) || request.expires_at <= Date.now()) return;
    const tap = openTap(request);
    if (tap === undefined) return;
    this.taps.set(tap.id, tap);
    this.active = true;
    const ack: { member: string | undefined } = { member: this.opts.memberId() };
    this.queue(tap.id, 'ack', Buffer.from(JSON.stringify(ack)));
  }

  private drop(id: string): void {
    const tap = this.taps.get(id);
    if (tap === undefined) return;
    this.reportSkipped(tap);
    this.taps.delete(id);
    this.active = this.taps.size > 0;
  }

  private reportSkipped(tap: OpenTap): void {
    if (tap.skipped === 0) return;
    this.queue(tap.id, 'skipped', Buffer.from(JSON.stringify({ skipped: tap.skipped })));
    tap.skipped = 0;
  }

  private onTick(): void {
    const now = Date.now();
    for (const tap of [...this.taps.values()]) {
      if (this.live(tap, now)) this.reportSkipped(tap);
    }
    // Closed ids are kept only as long as their open could still be read (the topic's retention).
    if (this.taps.size === 0 && this.closed.size > 10_000) this.closed.clear();
  }
}

/** A filter throws only on a bug; a tap never takes the worker down with it. */
function safeEvaluate(filter: CompiledFilter, ev: unknown): boolean {
  try {
    return filter.evaluate(ev);
  } catch {
    return false;
  }
}

/** The compiled tap, or undefined when no source compiles (the API checked them; a later version may differ). */
function openTap(r: TapOpen): OpenTap | undefined {
  const traffic = new Map<TrafficEventType, TrafficTap>();
  const audit = new Set<string>();
  for (const source of r.sources) {
    if (isAuditEventType(source.type)) {
      audit.add(source.type);
      continue;
    }
    if (!isTrafficEventType(source.type)) continue;
    let filter: CompiledFilter | undefined;
    if (source.filter !== undefined && source.filter.trim() !== '') {
      const compiled = compile(source.filter, source.type);
      if (!compiled.ok) {
        log.warn({ tap: r.tap, type: source.type }, 'A tap filter does not compile here; that source of the tap is skipped.');
        continue;
      }
      filter = compiled.filter;
    }
    const sampleBelow = r.sample_seed_id === undefined ? sampleThreshold(undefined) : sampleThreshold(source.sample_rate);
    traffic.set(source.type, { filter, project: projectorFor(source.fields ?? []), sampleBelow });
  }
  if (traffic.size === 0 && audit.size === 0) return undefined;
  return {
    id: r.tap,
    owner: r.owner,
    expiresAt: r.expires_at,
    limit: r.limit,
    traffic,
    audit,
    pair: pairDigits(r.ids.subscription, r.ids.destination),
    format: r.timestamp_format,
    seed: sampleSeed(r.sample_seed_id ?? r.tap),
    sent: 0,
    windowStart: 0,
    inWindow: 0,
    skipped: 0,
  };
}
