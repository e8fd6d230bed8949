// An S3-compatible store on 127.0.0.1 that refuses every object: a contract receiver written from S3's
// "Error responses" reference (the REST API's XML error body). Every PUT is answered 400 InvalidArgument,
// as a customer's own endpoint may answer; anything else (a HEAD or GET of the bucket) 200 with no body.
import { createServer, type Server } from 'node:http';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';

const REFUSAL = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidArgument</Code><Message>Invalid Argument</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>';

export class RefusingStore {
  private server: Server | undefined;
  private port = 0;
  /** Bytes of each refused PUT's body, in arrival order. */
  readonly puts: number[] = [];

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => {
        if (req.method !== 'PUT') {
          res.writeHead(200, { 'content-length': 0 }).end();
          return;
        }
        this.puts.push(bytes);
        res.writeHead(400, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(REFUSAL) }).end(REFUSAL);
      });
    });
    this.port = await listenOnLoopback(server);
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await closeNow(server);
  }
}
