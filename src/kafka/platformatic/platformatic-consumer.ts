// The seam's group consumer over @platformatic/kafka: its message stream cut into per-partition batches,
// at most a few partitions at a time and one batch per partition, with commits by hand only (never the
// client's autocommit, which commits a batch when it is parsed), gathered on a timer, one per partition in
// flight (../commit-timer.ts).
// The client heartbeats on its own timer and rejoins the group by itself when a rebalance begins, without waiting
// for the batches in flight (there is no blocking revoke hook); those batches turn stale, and the caller's
// drain deadline and ownership check decide what they still commit (ARCHITECTURE.md "Delivery and commits").
// Records of aborted transactions are dropped by read-committed.ts, not by the client's own filter.
// The records come straight from the fetch answers (fetched-records.ts), before the stream would build its
// per-message objects; the stream still runs the fetch loop, its offsets and its pauses.
import { stringDeserializer, type Connection, type ConsumerGroupJoinPayload, type Message, type MessagesStream } from '@platformatic/kafka';
import { createLogger } from '../../telemetry/logger.js';
import type { BatchHandler, GroupConsumer, GroupConsumerOptions, GroupListener, HeaderValue, IncomingMessage, KafkaClientOptions } from '../seam.js';
import { CommitTimer, STOP_FLUSH_MS } from '../commit-timer.js';
import { addHeader } from './fetch-response.js';
import { takeRecords } from './fetched-records.js';
import { baseOptions } from './platformatic-adapter.js';
import { ReadCommittedConsumer, type FetchedResponse } from './read-committed.js';

type PlatformaticMessage = Message<Buffer, Buffer, string, Buffer>;

interface PartitionQueue {
  readonly key: string;
  readonly topic: string;
  readonly partition: number;
  messages: IncomingMessage[];
  busy: boolean;
  highWatermark: string;
}

/** Records handed to one batch at most; about what one fetch of a partition brings. */
const MAX_BATCH = 2_000;
/** Records buffered across partitions before the stream is paused, and resumed below the low mark. */
const PAUSE_AT = 20_000;
const RESUME_AT = 5_000;
/** After the stream failed (a broker away longer than the retries), a new one is opened after this. */
const REOPEN_AFTER_MS = 1_000;

const log = createLogger('kafka');

/** In the context of a stream's connections: which stream the fetch answers on them are for. */
const READING = Symbol('edge-events.reading');

interface Reading {
  stream: MessagesStream<Buffer, Buffer, string, Buffer> | undefined;
}

/** The stream a fetch answer is for, from the context the connection it came on was opened with. */
const readingOf = (connection: Connection): Reading | undefined => (connection.context as { [READING]?: Reading } | undefined)?.[READING];

function headersOf(m: PlatformaticMessage): Record<string, HeaderValue> | undefined {
  if (m.headerEntries.length === 0) return undefined;
  const out: Record<string, HeaderValue> = {};
  // The entries, not the map: a header given several times keeps every value.
  for (const [name, value] of m.headerEntries) addHeader(out, name, value);
  return out;
}

export class PlatformaticGroupConsumer implements GroupConsumer {
  private readonly consumer: ReadCommittedConsumer<Buffer, Buffer, string, Buffer>;
  private stream: MessagesStream<Buffer, Buffer, string, Buffer> | undefined;
  /** Streams of earlier generations, closed once the next one is open (so the client keeps its topics and does not rejoin). */
  private readonly retiring = new Set<MessagesStream<Buffer, Buffer, string, Buffer>>();
  private handler: BatchHandler | undefined;
  /** Completed joins; a batch is stale once another join happened after it was cut. */
  private generation = 0;
  /** Per partition, in the order batches are started in (the least recently started first). */
  private readonly queues = new Map<string, PartitionQueue>();
  private readonly topicNames = new Map<string, string>();
  private lastQueue: PartitionQueue | undefined;
  private scheduling = false;
  private readonly running = new Set<Promise<void>>();
  private buffered = 0;
  private paused = false;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  /** When the member started or noticed a rebalance: a join's duration is measured from there. */
  private joinStartedAt: number | undefined;
  // The client commits under its current generation. A commit refused because the group moved on makes it
  // rejoin and commit again under the new one: harmless, since the offset only covers settled records, and
  // the caller has checked that the partition is still its own.
  private readonly commits = new CommitTimer(async (offsets) => {
    await this.consumer.commit({ offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), leaderEpoch: -1 })) });
  });

  constructor(
    client: KafkaClientOptions,
    private readonly options: GroupConsumerOptions,
    private readonly listener: GroupListener,
  ) {
    const rebalanceTimeout = options.rebalanceTimeoutMs ?? Math.max(60_000, options.sessionTimeoutMs);
    this.consumer = new ReadCommittedConsumer({
      // A JoinGroup may wait a whole rebalance timeout for the other members: no request may time out before.
      ...baseOptions(client, rebalanceTimeout + 5_000),
      groupId: options.groupId,
      ...(options.groupInstanceId !== undefined && { groupInstanceId: options.groupInstanceId }),
      sessionTimeout: options.sessionTimeoutMs,
      heartbeatInterval: options.heartbeatIntervalMs,
      rebalanceTimeout,
      autocommit: false,
      maxWaitTime: options.maxWaitMs,
      maxBytes: options.fetchMaxBytes ?? 10 * 1024 * 1024,
      maxBytesPerPartition: options.fetchMaxBytes ?? 1024 * 1024,
      deserializers: { headerKey: (v) => stringDeserializer(v) ?? '' },
    });
    this.consumer.onFetched = (connection, response) => {
      const reading = readingOf(connection);
      if (reading !== undefined) this.takeFetched(reading, response);
    };
    this.consumer.on('consumer:group:join', (payload: ConsumerGroupJoinPayload) => this.onJoin(payload));
    this.consumer.on('consumer:group:rebalance', () => {
      this.joinStartedAt ??= Date.now();
      listener.onGroupError?.('REBALANCE_IN_PROGRESS');
    });
  }

  get connected(): boolean {
    return this.consumer.isConnected();
  }

  async start(handler: BatchHandler): Promise<void> {
    this.handler = handler;
    this.joinStartedAt = Date.now();
    await this.open();
  }

  commit(topic: string, partition: number, offset: number): Promise<void> {
    return this.commits.commit(topic, partition, offset);
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      this.queues.clear();
      await Promise.allSettled([...this.running]);
      await this.commits.flush(STOP_FLUSH_MS);
      this.retire();
      await this.closeRetiring();
      // Leaves the group, so its partitions move at once.
      await this.consumer.close(true).catch((err: unknown) => log.warn({ err, group: this.options.groupId }, 'The consumer did not leave its group cleanly.'));
    })();
    return this.stopped;
  }

  /** A stream per generation: records fetched before a join are never handed over after it. */
  private async open(): Promise<void> {
    // Each stream opens its own connections for its fetches; their context names the stream.
    const reading: Reading = { stream: undefined };
    const stream = await this.consumer.consume({
      topics: [...this.options.topics],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
      maxWaitTime: this.options.maxWaitMs,
      minBytes: this.options.minBytes ?? 1,
      context: { ...(this.consumer.streamContext as object | undefined), [READING]: reading },
    });
    reading.stream = stream;
    // A join the open itself needed happened before the stream was made, so the stream starts from the
    // committed offsets of that join's assignment.
    if (this.stopping) {
      await stream.close().catch(() => undefined);
      return;
    }
    this.stream = stream;
    this.paused = false;
    await this.closeRetiring();
    // Only records takeFetched left (a topic it could not name) reach the stream's messages.
    stream.on('data', (m: PlatformaticMessage) => {
      if (this.stream === stream) this.take(m);
    });
    stream.on('error', (err: unknown) => {
      if (this.stream !== stream || this.stopping) return;
      this.listener.onCrash?.(err, true);
      this.retire();
      this.generation++;
      setTimeout(() => void this.reopen(), REOPEN_AFTER_MS).unref();
    });
  }

  private async reopen(): Promise<void> {
    if (this.stopping || this.stream !== undefined) return;
    this.dropQueued();
    try {
      await this.open();
    } catch (err) {
      this.listener.onCrash?.(err, true);
      setTimeout(() => void this.reopen(), REOPEN_AFTER_MS).unref();
    }
  }

  private onJoin(payload: ConsumerGroupJoinPayload): void {
    this.generation++;
    const assignment: Record<string, number[]> = {};
    for (const a of payload.assignments ?? []) assignment[a.topic] = [...a.partitions];
    const started = this.joinStartedAt;
    this.joinStartedAt = undefined;
    this.listener.onJoin?.(assignment, { memberId: payload.memberId, ...(started !== undefined && { durationMs: Date.now() - started }) });
    // The first join happens inside start()'s consume(); later ones get a fresh stream, which reads
    // every assigned partition again from its committed offset.
    if (this.stream === undefined || this.stopping) return;
    this.dropQueued();
    this.retire();
    this.open().catch((err: unknown) => {
      this.listener.onCrash?.(err, true);
      setTimeout(() => void this.reopen(), REOPEN_AFTER_MS).unref();
    });
  }

  /**
   * A failed batch, or one whose handler left records unresolved, may leave records unhandled before
   * others of its partition: every partition is read again from its committed offset.
   */
  private restart(err: unknown): void {
    if (err !== undefined) this.listener.onCrash?.(err, true);
    if (this.stopping) return;
    this.generation++;
    this.dropQueued();
    this.retire();
    void this.reopen();
  }

  /** Stops handing over the current stream's records; it is closed once the next stream is open. */
  private retire(): void {
    if (this.stream !== undefined) this.retiring.add(this.stream);
    this.stream = undefined;
  }

  private async closeRetiring(): Promise<void> {
    const old = [...this.retiring];
    this.retiring.clear();
    await Promise.allSettled(old.map((s) => s.close()));
  }

  private dropQueued(): void {
    for (const q of this.queues.values()) {
      this.buffered -= q.messages.length;
      q.messages = [];
    }
  }

  /**
   * Takes the records of a fetch answer for the current stream into the partition queues, from the offset
   * the stream fetched each partition at, and leaves the stream nothing of them to hand over; a retired
   * stream's answer is dropped (its partitions are read again from their committed offsets).
   */
  private takeFetched(reading: Reading, response: FetchedResponse): void {
    const stream = reading.stream;
    if (stream === undefined) return;
    const current = stream === this.stream && !this.stopping;
    for (const t of response.responses) {
      const topic = t.topic ?? this.topicNamed(t.topicId);
      if (topic === undefined) continue;
      for (const p of t.partitions) {
        if (p.records === undefined || p.records === null || p.partitionIndex === undefined) continue;
        // A partition the stream did not ask for (lingering in a fetch session) is skipped by the stream too.
        const from = stream.offsetsToFetch.get(`${topic}:${p.partitionIndex}`);
        if (from === undefined) continue;
        const messages: IncomingMessage[] = [];
        takeRecords(p.records, from, messages);
        if (current && messages.length > 0) this.append(topic, p.partitionIndex, messages);
      }
    }
  }

  /** A topic's name from its id (Fetch v13 and later), by the cluster metadata the stream fetched with. */
  private topicNamed(id: string | undefined): string | undefined {
    if (id === undefined) return undefined;
    let name = this.topicNames.get(id);
    if (name === undefined) {
      for (const [topic, m] of this.consumer.currentMetadata?.topics ?? []) this.topicNames.set(m.id, topic);
      name = this.topicNames.get(id);
    }
    return name;
  }

  private take(m: PlatformaticMessage): void {
    this.append(m.topic, m.partition, [{ key: m.key ?? null, value: m.value ?? null, offset: String(m.offset), timestamp: String(m.timestamp), headers: headersOf(m) }]);
  }

  private append(topic: string, partition: number, messages: readonly IncomingMessage[]): void {
    // A fetch hands over a partition's records in a row: the queue of the previous record is usually this one's.
    let q = this.lastQueue;
    if (q === undefined || q.partition !== partition || q.topic !== topic || this.queues.get(q.key) !== q) {
      const key = `${topic}\u0000${partition}`;
      q = this.queues.get(key);
      if (q === undefined) this.queues.set(key, (q = { key, topic, partition, messages: [], busy: false, highWatermark: '0' }));
      this.lastQueue = q;
    }
    for (const m of messages) q.messages.push(m);
    this.buffered += messages.length;
    if (this.buffered >= PAUSE_AT && !this.paused) {
      this.paused = true;
      this.stream?.pause();
    }
    // Let the records of the same fetch gather before a batch is cut: the stream hands them over one by one.
    if (!this.scheduling) {
      this.scheduling = true;
      setImmediate(() => {
        this.scheduling = false;
        this.schedule();
      });
    }
  }

  /**
   * Starts batches for partitions with records and no batch running, up to the concurrency, longest
   * waiting first: a partition whose batch starts goes to the back of the queue order, so the others
   * are not starved while more partitions have records than may run at once.
   */
  private schedule(): void {
    const limit = this.options.partitionsConcurrently ?? 1;
    if (this.stopping || this.handler === undefined) return;
    for (const [key, q] of [...this.queues]) {
      if (this.running.size >= limit) return;
      if (q.busy || q.messages.length === 0) continue;
      this.queues.delete(key);
      this.queues.set(key, q);
      this.runBatch(q);
    }
  }

  private runBatch(q: PartitionQueue): void {
    const handler = this.handler as BatchHandler;
    const messages = q.messages.length <= MAX_BATCH ? q.messages : q.messages.slice(0, MAX_BATCH);
    q.messages = q.messages.length <= MAX_BATCH ? [] : q.messages.slice(MAX_BATCH);
    this.buffered -= messages.length;
    if (this.paused && this.buffered <= RESUME_AT) {
      this.paused = false;
      this.stream?.resume();
    }
    q.busy = true;
    const generation = this.generation;
    const last = messages[messages.length - 1] as IncomingMessage;
    let resolved = -1;
    let hold: Promise<unknown> | undefined;
    const done = handler(
      { topic: q.topic, partition: q.partition, messages, highWatermark: String(Number(last.offset) + 1 + q.messages.length), reading: generation },
      {
        // The client heartbeats on its own timer.
        heartbeat: () => Promise.resolve(),
        isStale: () => this.stopping || generation !== this.generation,
        resolve: (offset) => (resolved = Number(offset)),
        holdNext: (until) => (hold = until),
      },
    )
      .then(() => {
        // The stream has moved past the records the handler left: read them again from the committed offset.
        if (resolved < Number(last.offset) && !this.stopping && generation === this.generation) this.restart(undefined);
      })
      .catch((err: unknown) => this.restart(err))
      .finally(() => {
        this.running.delete(done);
        if (hold === undefined) q.busy = false;
        // Held, the partition keeps its place out of the turns until its hold settles; the others take the turn.
        else
          void hold
            .catch((err: unknown) => this.restart(err))
            .finally(() => {
              q.busy = false;
              this.schedule();
            });
        this.schedule();
      });
    this.running.add(done);
  }
}
