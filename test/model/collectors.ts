// What the model's run reads back: every envelope each destination received (an http receiver on
// loopback, the file destinations' NDJSON, the kafka destinations' topics), the records on the input
// topics with their partitions and offsets, and the dead letters with their source headers.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { KafkaClient } from '../../src/kafka/seam.js';
import { readTopics } from '../support/kafka-tools.js';
import { closeNow, listenOnLoopback } from '../support/loopback-server.js';

/** A delivered envelope, parsed, or the text of a line that was not one. */
export type Arrival = { readonly ok: true; readonly envelope: Record<string, unknown>; readonly key?: string | null } | { readonly ok: false; readonly text: string };

export function parseArrival(text: string): Arrival {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? { ok: true, envelope: v as Record<string, unknown> } : { ok: false, text };
  } catch {
    return { ok: false, text };
  }
}

/** An http receiver on 127.0.0.1 answering 200 to every batch; one path per destination. */
export class Receiver {
  private server: Server | undefined;
  private port = 0;
  readonly byPath = new Map<string, Arrival[]>();

  url(path: string): string {
    return `http://127.0.0.1:${this.port}/${path}`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').slice(1);
        const list = this.byPath.get(path) ?? [];
        this.byPath.set(path, list);
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          const batch = JSON.parse(text) as unknown[];
          for (const e of batch) list.push({ ok: true, envelope: e as Record<string, unknown> });
        } catch {
          list.push({ ok: false, text });
        }
        res.writeHead(200).end('ok');
      });
    });
    this.port = await listenOnLoopback(server);
    this.server = server;
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeNow(this.server);
    this.server = undefined;
  }
}

/** A file destination's events: its file and the rotated ones beside it (`<name>.1`, ...). */
export function readFileArrivals(path: string): Arrival[] {
  const dir = dirname(path);
  if (!existsSync(dir)) return [];
  const name = basename(path);
  const out: Arrival[] = [];
  for (const file of readdirSync(dir).filter((f) => f === name || f.startsWith(`${name}.`))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) if (line !== '') out.push(parseArrival(line));
  }
  return out;
}

export interface Seen {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly timestampMs: number;
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** Reads topics from the beginning in a group of its own (read committed) and keeps every record. */
export class TopicTail {
  private reader: Awaited<ReturnType<typeof readTopics>> | undefined;
  readonly byTopic = new Map<string, Seen[]>();

  constructor(
    private readonly kafka: KafkaClient,
    private readonly groupId: string,
  ) {}

  of(topic: string): Seen[] {
    return this.byTopic.get(topic) ?? [];
  }

  async start(topics: readonly string[]): Promise<void> {
    this.reader = await readTopics(this.kafka, { topics, groupId: this.groupId, maxWaitMs: 200 }, (m) => {
      const list = this.byTopic.get(m.topic) ?? [];
      this.byTopic.set(m.topic, list);
      list.push({ topic: m.topic, partition: m.partition, offset: m.offset, timestampMs: m.timestampMs, key: m.key, value: m.bytes, headers: m.headers });
    });
  }

  async stop(): Promise<void> {
    await this.reader?.stop();
    this.reader = undefined;
  }
}

/** A kafka destination's events with their message keys. */
export function kafkaArrivals(seen: readonly Seen[]): Arrival[] {
  return seen.map((s) => {
    const a = parseArrival(s.value?.toString('utf8') ?? '');
    return a.ok ? { ...a, key: s.key } : a;
  });
}
