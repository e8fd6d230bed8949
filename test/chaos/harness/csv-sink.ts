// An http receiver on 127.0.0.1 for destinations with output_type csv: answers every body 200 and keeps
// what bounds a CSV body (its bytes, its header's columns) and the sequence number of every row. It reads
// as little as it can, so a scenario's measurements in the same process are not held up by it: the header
// line's names (the catalogue's, which hold no comma or quote) and each row's "/seq/N" url path, the one
// field holding that text (docs/subscription-controls.md "Output options").
import { createServer, type Server } from 'node:http';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';

export class CsvSink {
  private server: Server | undefined;
  private port = 0;
  bodies = 0;
  rows = 0;
  mostBodyBytes = 0;
  mostColumns = 0;
  /** Bodies whose header lacks the column named, or does not end in CRLF. */
  malformed = 0;
  /** Sequence numbers of the rows, duplicates kept. */
  readonly seqs: number[] = [];

  /** `seqColumn` is the header name of the column holding "/seq/N" (an http record's url path). */
  constructor(private readonly seqColumn: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/csv`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.take(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
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

  private take(body: Buffer): void {
    this.bodies++;
    this.mostBodyBytes = Math.max(this.mostBodyBytes, body.length);
    const headerEnd = body.indexOf('\r\n');
    const header = body.toString('latin1', 0, headerEnd < 0 ? body.length : headerEnd).split(',');
    this.mostColumns = Math.max(this.mostColumns, header.length);
    if (headerEnd < 0 || !header.includes(this.seqColumn) || body.at(-2) !== 0x0d || body.at(-1) !== 0x0a) {
      this.malformed++;
      return;
    }
    for (const m of body.toString('latin1', headerEnd).matchAll(/,\/seq\/(\d+)(?=[,\r])/g)) {
      this.rows++;
      this.seqs.push(Number(m[1]));
    }
  }
}
