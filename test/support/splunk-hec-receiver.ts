// A contract receiver of Splunk's HTTP Event Collector, written from Splunk's HEC reference ("Format
// events for HTTP Event Collector", "Troubleshoot HTTP Event Collector", "About HTTP Event Collector
// Indexer Acknowledgment"), since no Splunk installs here: POST /services/collector/event with
// `Authorization: Splunk <token>` (codes 1-4 for a disabled, missing, malformed or unknown token), gzip
// bodies, concatenated event objects (6 with invalid-event-number, 12, 13), the token's allowed indexes (7),
// acknowledgement channels (10, 11, 14; ackIds per channel, POST /services/collector/ack), and
// GET /services/collector/health (17, or 18 when busy). It records the events it indexed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { closeNow, listenOnLoopback } from './loopback-server.js';

export interface HecToken {
  readonly token: string;
  readonly disabled?: boolean;
  /** Indexer acknowledgement on for this token: a channel is then required. */
  readonly ack?: boolean;
  /** Indexes the token may write; absent: any. The default index is "main". */
  readonly indexes?: readonly string[];
}

export interface HecEvent {
  readonly time?: number;
  readonly host?: string;
  readonly source?: string;
  readonly sourcetype?: string;
  readonly index: string;
  readonly event: unknown;
}

const GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** Splits concatenated JSON objects (whitespace between them allowed), as HEC reads a batch; throws with the index of the first it cannot read. */
export function splitConcatenated(text: string): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (i >= text.length) break;
    if (text[i] !== '{') throw Object.assign(new Error('not an object'), { eventNumber: out.length });
    let depth = 0;
    let inString = false;
    let j = i;
    for (; j < text.length; j++) {
      const c = text[j];
      if (inString) {
        if (c === '\\') j++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) break;
    }
    try {
      out.push(JSON.parse(text.slice(i, j + 1)));
    } catch {
      throw Object.assign(new Error('unreadable event'), { eventNumber: out.length });
    }
    i = j + 1;
  }
  return out;
}

export class SplunkHecReceiver {
  private server: Server | undefined;
  private port = 0;
  readonly events: HecEvent[] = [];
  /** Requests to the event endpoint, answered or not. */
  requests = 0;
  /** Answer 503 code 9 (server busy) to event posts, and 18 from health. */
  busy = false;
  /** Acks stay false while held; release them with releaseAcks(). */
  holdAcks = false;
  private readonly channels = new Map<string, { next: number; pending: Map<number, HecEvent[]>; acked: Set<number> }>();

  /** `tls`: serve https with this key and certificate (an on-premises collector's own CA). */
  constructor(
    readonly tokens: readonly HecToken[],
    private readonly tls?: { readonly key: Buffer; readonly cert: Buffer },
  ) {}

  get url(): string {
    return `${this.tls === undefined ? 'http' : 'https'}://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.server !== undefined) return;
    const handler = (req: IncomingMessage, res: ServerResponse): void => void this.handle(req, res);
    // An https server has the http server's listen and close calls.
    this.server = this.tls === undefined ? createServer(handler) : (createTlsServer(this.tls, handler) as unknown as Server);
    this.port = await listenOnLoopback(this.server, this.port);
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeNow(this.server);
    this.server = undefined;
  }

  /** Indexes the events of every held acknowledgement and marks them acknowledged. */
  releaseAcks(): void {
    for (const ch of this.channels.values()) {
      for (const [id, events] of ch.pending) {
        this.events.push(...events);
        ch.acked.add(id);
      }
      ch.pending.clear();
    }
  }

  private answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body = Buffer.concat(chunks);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/services/collector/health') {
      return this.busy ? this.answer(res, 503, { text: 'HEC is unhealthy, queues are full', code: 18 }) : this.answer(res, 200, { text: 'HEC is healthy', code: 17 });
    }
    const auth = req.headers.authorization;
    if (auth === undefined) return this.answer(res, 401, { text: 'Token is required', code: 2 });
    const m = /^Splunk (\S+)$/.exec(auth);
    if (m === null) return this.answer(res, 401, { text: 'Invalid authorization', code: 3 });
    const token = this.tokens.find((t) => t.token === m[1]);
    if (token === undefined) return this.answer(res, 403, { text: 'Invalid token', code: 4 });
    if (token.disabled === true) return this.answer(res, 403, { text: 'Token disabled', code: 1 });
    const channelId = (req.headers['x-splunk-request-channel'] as string | undefined) ?? new URL(req.url ?? '/', 'http://x').searchParams.get('channel') ?? undefined;
    if (path === '/services/collector/ack') {
      if (token.ack !== true) return this.answer(res, 400, { text: 'ACK is disabled', code: 14 });
      if (channelId === undefined) return this.answer(res, 400, { text: 'Data channel is missing', code: 10 });
      const ch = this.channels.get(channelId);
      const ids = (JSON.parse(body.toString('utf8')) as { acks: number[] }).acks;
      return this.answer(res, 200, { acks: Object.fromEntries(ids.map((id) => [String(id), ch?.acked.has(id) === true])) });
    }
    if (req.method !== 'POST' || path !== '/services/collector/event') return this.answer(res, 404, { text: 'The requested URL was not found on this server.', code: 404 });
    this.requests++;
    if (this.busy) return this.answer(res, 503, { text: 'Server is busy', code: 9 });
    if (token.ack === true) {
      if (channelId === undefined) return this.answer(res, 400, { text: 'Data channel is missing', code: 10 });
      if (!GUID.test(channelId)) return this.answer(res, 400, { text: 'Invalid data channel', code: 11 });
    }
    if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
    const text = body.toString('utf8');
    if (text.trim() === '') return this.answer(res, 400, { text: 'No data', code: 5 });
    let objects: unknown[];
    try {
      objects = splitConcatenated(text);
    } catch (err) {
      return this.answer(res, 400, { text: 'Invalid data format', code: 6, 'invalid-event-number': (err as { eventNumber: number }).eventNumber });
    }
    const events: HecEvent[] = [];
    for (const [n, o] of objects.entries()) {
      const e = o as Record<string, unknown>;
      if (!('event' in e)) return this.answer(res, 400, { text: 'Event field is required', code: 12, 'invalid-event-number': n });
      if (e.event === '' || e.event === null) return this.answer(res, 400, { text: 'Event field cannot be blank', code: 13, 'invalid-event-number': n });
      const index = typeof e.index === 'string' ? e.index : 'main';
      if (token.indexes !== undefined && !token.indexes.includes(index)) return this.answer(res, 400, { text: 'Incorrect index', code: 7, 'invalid-event-number': n });
      events.push({ ...(e as object), index } as HecEvent);
    }
    if (token.ack !== true) {
      this.events.push(...events);
      return this.answer(res, 200, { text: 'Success', code: 0 });
    }
    const ch = this.channels.get(channelId as string) ?? { next: 0, pending: new Map(), acked: new Set<number>() };
    this.channels.set(channelId as string, ch);
    const ackId = ch.next++;
    if (this.holdAcks) ch.pending.set(ackId, events);
    else {
      this.events.push(...events);
      ch.acked.add(ackId);
    }
    return this.answer(res, 200, { text: 'Success', code: 0, ackId });
  }
}
