// A real HTTP receiver on 127.0.0.1 for the http writer's tests: records every request and answers
// from a script, so tests can inject throttling, server errors, slowness and rejections.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Envelope } from '../../../src/events/envelope.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';

export interface ReceivedRequest {
  readonly at: number;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly status: number;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Wait this long before answering (to trip the writer's timeout). */
  readonly delayMs?: number;
}

/** Decides the reply to the n-th request (0-based); undefined means 200. */
export type Script = (request: { n: number; headers: IncomingHttpHeaders; body: Buffer }) => Reply | undefined;

export class HttpReceiver {
  readonly requests: ReceivedRequest[] = [];
  script: Script = () => undefined;
  private server: Server | undefined;
  private port = 0;
  private arrivals = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/events`;
  }

  /** Listens on a free port the first time, and on the same port after a stop(). */
  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const n = this.arrivals++;
        const reply = this.script({ n, headers: req.headers, body }) ?? { status: 200 };
        const answer = (): void => {
          this.requests.push({ at: Date.now(), method: req.method ?? '', headers: req.headers, body, status: reply.status });
          res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
          res.end(reply.status < 300 ? 'ok' : `status ${reply.status}`);
        };
        if (reply.delayMs === undefined) answer();
        else setTimeout(answer, reply.delayMs);
      });
    });
    this.port = await listenOnLoopback(server, this.port);
    this.server = server;
  }

  /** Closes the listener and cuts every open connection, as a crashed receiver would. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    await closeNow(server);
  }

  /** Events of the requests answered 2xx, in arrival order (duplicates kept). */
  delivered(): Envelope[] {
    return this.requests
      .filter((r) => r.status >= 200 && r.status < 300)
      .flatMap((r) => JSON.parse(r.body.toString('utf8')) as Envelope[]);
  }
}
