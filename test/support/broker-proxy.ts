// A TCP proxy on 127.0.0.1 in front of the suite's broker, for tests of what the service does when the
// network between it and a broker fails: answers lost on the way back (the request reaches the broker and
// is carried out, but the client never hears of it and times out), and an outage (every connection cut,
// new ones refused). A client is given the proxy as its bootstrap broker; the proxy rewrites the port of
// the brokers the cluster advertises (Metadata, FindCoordinator) to its own, so every later connection
// comes through it too. The suite's cluster has one broker, which is all this supports.
//
// Kafka frames are a 4-byte big-endian size then the body; a request body starts with its API key
// (int16), version (int16) and correlation id (int32), a response body with the correlation id.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createClient } from '../../src/kafka/client.js';
import type { KafkaClient } from '../../src/kafka/seam.js';

/** Kafka API keys (the protocol's numbering). */
export const API_KEYS = { produce: 0, metadata: 3, findCoordinator: 10, endTxn: 26 } as const;

interface Request {
  readonly apiKey: number;
  readonly version: number;
}

export interface ProxyClientOptions {
  /**
   * Retries of one request; few, so a lost answer fails the call quickly. At least 2: the client takes
   * 0 or 1 for an idempotent producer as "retry for ever".
   */
  readonly retries: number;
  /** How long a request waits for its answer. */
  readonly requestTimeoutMs?: number;
}

export class BrokerProxy {
  /** The API keys whose answers are lost while in this set. */
  readonly lose = new Set<number>();
  /** Answers lost so far. */
  lost = 0;
  private readonly server: Server;
  private readonly pairs = new Set<{ client: Socket; broker: Socket }>();
  private port = 0;

  private constructor(private readonly broker: { host: string; port: number }) {
    this.server = createServer((client) => this.accept(client));
  }

  /** A proxy listening on a free port of 127.0.0.1 in front of `brokers` ("127.0.0.1:port"). */
  static async start(brokers: string): Promise<BrokerProxy> {
    const [host = '', port = ''] = brokers.split(',')[0]?.split(':') ?? [];
    const proxy = new BrokerProxy({ host, port: Number(port) });
    await proxy.listen(0);
    return proxy;
  }

  /** "127.0.0.1:port" of the proxy. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** The service's client seam with the proxy as its only way to the broker. */
  client(clientId: string, options: ProxyClientOptions): KafkaClient {
    return createClient({ clientId, brokers: this.address, retries: options.retries, requestTimeoutMs: options.requestTimeoutMs ?? 2_000, connectionTimeoutMs: 1_000 });
  }

  /** As a broker that crashed: every connection is reset, and new ones are refused until restore(). */
  async disrupt(): Promise<void> {
    // close() stops accepting at once, and calls back once the last connection is gone.
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const pair of this.pairs) {
      pair.client.resetAndDestroy();
      pair.broker.destroy();
    }
    this.pairs.clear();
    await closed;
  }

  async restore(): Promise<void> {
    await this.listen(this.port);
  }

  async stop(): Promise<void> {
    await this.disrupt().catch(() => undefined);
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    const broker = connect(this.broker);
    const pair = { client, broker };
    this.pairs.add(pair);
    const end = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      broker.destroy();
    };
    client.on('error', end).on('close', end);
    broker.on('error', end).on('close', end);
    const requests = new Map<number, Request>();
    const doomed = new Set<number>();
    framed(client, (frame) => {
      const correlationId = frame.readInt32BE(8);
      const apiKey = frame.readInt16BE(4);
      requests.set(correlationId, { apiKey, version: frame.readInt16BE(6) });
      if (this.lose.has(apiKey)) doomed.add(correlationId);
      broker.write(frame);
    });
    framed(broker, (frame) => {
      const correlationId = frame.readInt32BE(4);
      const request = requests.get(correlationId);
      requests.delete(correlationId);
      if (doomed.delete(correlationId)) {
        this.lost++;
        return;
      }
      if (request !== undefined) advertiseSelf(frame, request, this.port);
      client.write(frame);
    });
  }
}

/** Calls `onFrame` with each whole frame (size included) read from the socket. */
function framed(socket: Socket, onFrame: (frame: Buffer) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const end = 4 + pending.readInt32BE(0);
      onFrame(Buffer.from(pending.subarray(0, end)));
      pending = pending.subarray(end);
    }
  });
}

/** The first version of each API with the flexible (compact, tagged) encoding. */
const FLEXIBLE_FROM: Record<number, number> = { [API_KEYS.metadata]: 9, [API_KEYS.findCoordinator]: 3 };

/** Overwrites, in place, the port of every broker a Metadata or FindCoordinator answer names with `port`. */
function advertiseSelf(frame: Buffer, request: Request, port: number): void {
  const flexibleFrom = FLEXIBLE_FROM[request.apiKey];
  if (flexibleFrom === undefined) return;
  const r = new Reader(frame, 8, request.version >= flexibleFrom);
  r.taggedFields(); // the response header's
  if (request.apiKey === API_KEYS.metadata) {
    if (request.version >= 3) r.skip(4); // throttle_time_ms
    for (let n = r.arrayLength(); n > 0; n--) {
      r.skip(4); // node_id
      r.string(); // host
      frame.writeInt32BE(port, r.take(4));
      if (request.version >= 1) r.string(); // rack
      r.taggedFields();
    }
    return;
  }
  if (request.version >= 1) r.skip(4); // throttle_time_ms
  if (request.version < 4) {
    r.skip(2); // error_code
    if (request.version >= 1) r.string(); // error_message
    r.skip(4); // node_id
    r.string(); // host
    frame.writeInt32BE(port, r.take(4));
    return;
  }
  for (let n = r.arrayLength(); n > 0; n--) {
    r.string(); // key
    r.skip(4); // node_id
    r.string(); // host
    frame.writeInt32BE(port, r.take(4));
    r.skip(2); // error_code
    r.string(); // error_message
    r.taggedFields();
  }
}

/** Reads Kafka's primitive types in the classic or the flexible (compact) encoding. */
class Reader {
  constructor(
    private readonly buffer: Buffer,
    private offset: number,
    private readonly flexible: boolean,
  ) {}

  /** Moves past `n` bytes and returns where they began. */
  take(n: number): number {
    const at = this.offset;
    this.offset += n;
    return at;
  }

  skip(n: number): void {
    this.offset += n;
  }

  /** A string or a nullable one: its bytes are skipped. */
  string(): void {
    const length = this.flexible ? this.uvarint() - 1 : this.buffer.readInt16BE(this.take(2));
    if (length > 0) this.skip(length);
  }

  arrayLength(): number {
    return this.flexible ? this.uvarint() - 1 : this.buffer.readInt32BE(this.take(4));
  }

  taggedFields(): void {
    if (!this.flexible) return;
    for (let n = this.uvarint(); n > 0; n--) {
      this.uvarint(); // tag
      this.skip(this.uvarint());
    }
  }

  private uvarint(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.buffer.readUInt8(this.take(1));
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  }
}
