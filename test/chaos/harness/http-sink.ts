// An http receiver on 127.0.0.1 for the fault scenarios: one listener, one destination per path, each
// answering 200 (at once or after a delay), a chosen error status, or nothing at all (a hang), and
// recording every event it accepted.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { seqOfEnvelope } from './verifiable-source.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';

export type SinkMode =
  | { readonly kind: 'ok' }
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'hang' }
  /** 200 after `delayMs`; the events count as accepted only if that answer could still be sent. */
  | { readonly kind: 'slow'; readonly delayMs: number };

/** The events of one path that were answered 2xx, in arrival order, duplicates kept. */
export interface Arrivals {
  readonly seqs: number[];
  /** Date.now() when the batch holding the event was accepted. */
  readonly at: number[];
  /** Requests refused (error status) or held (hang) while the path was failing. */
  refused: number;
}

const OK: SinkMode = { kind: 'ok' };

export class HttpSink {
  private server: Server | undefined;
  private port = 0;
  private readonly modes = new Map<string, SinkMode>();
  private readonly arrivals = new Map<string, Arrivals>();
  private readonly held = new Map<string, Set<ServerResponse>>();
  /** Envelopes that carried no sequence number (should not happen; reported by the scenarios). */
  unreadable = 0;

  /** The destination URL of `path` ("a" gives http://127.0.0.1:port/a). */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}/${path}`;
  }

  of(path: string): Arrivals {
    let a = this.arrivals.get(path);
    if (a === undefined) this.arrivals.set(path, (a = { seqs: [], at: [], refused: 0 }));
    return a;
  }

  /** Switches a path's answers. Leaving 'hang' answers the held requests with 503, so none of them counts. */
  setMode(path: string, mode: SinkMode): void {
    this.modes.set(path, mode);
    if (mode.kind === 'hang') return;
    const held = this.held.get(path);
    this.held.delete(path);
    for (const res of held ?? []) if (!res.destroyed) res.writeHead(503).end('the hang is over');
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    // Hung requests must not keep the process alive past the scenario, and no default timeout may answer them.
    server.requestTimeout = 0;
    server.keepAliveTimeout = 5_000;
    this.port = await listenOnLoopback(server);
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    for (const path of [...this.held.keys()]) this.setMode(path, OK);
    await closeNow(server);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').slice(1).split('?')[0] ?? '';
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const mode = this.modes.get(path) ?? OK;
      const arrivals = this.of(path);
      if (mode.kind === 'hang') {
        arrivals.refused++;
        let held = this.held.get(path);
        if (held === undefined) this.held.set(path, (held = new Set()));
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      if (mode.kind === 'status') {
        arrivals.refused++;
        res.writeHead(mode.status, { 'content-type': 'text/plain' }).end(`status ${mode.status}`);
        return;
      }
      let events: unknown[];
      try {
        events = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[];
      } catch {
        res.writeHead(400).end('not json');
        return;
      }
      const accept = (): void => {
        // A sender gone meanwhile (killed, or its request timed out) never got the 200: nothing was accepted.
        if (res.destroyed) return;
        const now = Date.now();
        for (const e of events) {
          const seq = seqOfEnvelope(e);
          if (seq === undefined) {
            this.unreadable++;
            continue;
          }
          arrivals.seqs.push(seq);
          arrivals.at.push(now);
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (mode.kind === 'slow') setTimeout(accept, mode.delayMs);
      else accept();
    });
  }
}
