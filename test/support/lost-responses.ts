// A kafkajs client whose broker answers can be lost on the way back: the request reaches the broker and
// is carried out, but the client never hears of it and times out, as over a connection that drops
// replies. Kafka frames are a 4-byte big-endian size then the body; a request body starts with its API
// key (int16), version (int16) and correlation id (int32), a response body with the correlation id.
import { connect, type Socket } from 'node:net';
import { Kafka, logLevel, type ISocketFactory, type RetryOptions } from 'kafkajs';
import { kafkajsClientOf } from '../../src/kafka/kafkajs/kafkajs-adapter.js';
import type { KafkaClient } from '../../src/kafka/seam.js';

/** Kafka API keys (the protocol's numbering). */
export const API_KEYS = { produce: 0, endTxn: 26 } as const;

export class LostResponses {
  /** The API keys whose answers are lost while in this set. */
  readonly lose = new Set<number>();
  /** Answers lost so far. */
  lost = 0;

  readonly socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = connect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    this.intercept(socket);
    return socket;
  };

  /**
   * The service's client seam over kafkajs on these sockets, with a short request timeout so a lost
   * answer is noticed quickly. kafkajs only: @platformatic/kafka takes no socket of the caller's.
   */
  client(clientId: string, brokers: string, retry: RetryOptions): KafkaClient {
    return kafkajsClientOf(new Kafka({ clientId, brokers: [brokers], socketFactory: this.socketFactory, requestTimeout: 2_000, connectionTimeout: 2_000, retry, logLevel: logLevel.NOTHING }), [brokers]);
  }

  private intercept(socket: Socket): void {
    const doomed = new Set<number>();
    let out = Buffer.alloc(0);
    const write = socket.write.bind(socket) as (chunk: Buffer, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: Buffer, ...rest: unknown[]) => {
      out = Buffer.concat([out, chunk]);
      for (let frame = nextFrame(out); frame !== undefined; frame = nextFrame(out)) {
        out = out.subarray(frame.length);
        if (this.lose.has(frame.readInt16BE(4))) doomed.add(frame.readInt32BE(8));
      }
      return write(chunk, ...rest);
    }) as typeof socket.write;
    let inbound = Buffer.alloc(0);
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event !== 'data') return emit(event, ...args);
      inbound = Buffer.concat([inbound, args[0] as Buffer]);
      for (let frame = nextFrame(inbound); frame !== undefined; frame = nextFrame(inbound)) {
        inbound = inbound.subarray(frame.length);
        if (doomed.delete(frame.readInt32BE(4))) this.lost++;
        else emit('data', frame);
      }
      return true;
    }) as typeof socket.emit;
  }
}

function nextFrame(buffer: Buffer): Buffer | undefined {
  if (buffer.length < 4) return undefined;
  const end = 4 + buffer.readInt32BE(0);
  return buffer.length < end ? undefined : buffer.subarray(0, end);
}
