// A live tap whose client never reads, over a real HTTP server and a real socket: the session holds at
// most TAP_BUFFER_BYTES unsent, skips the events the client did not keep up with, and says how many once
// the client reads again (src/tap/README.md).
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { TAP_BUFFER_BYTES } from '../../../src/tap/tap-protocol.js';
import { TapSession } from '../../../src/tap/tap-session.js';

let server: Server | undefined;
let client: Socket | undefined;
afterEach(async () => {
  client?.destroy();
  await new Promise((r) => server?.close(r) ?? r(undefined));
});

it('should hold a bounded number of bytes for a client that never reads, skip what it could not send, and say how many', async () => {
  let response: ServerResponse | undefined;
  let session: TapSession | undefined;
  server = createServer((_req, res) => {
    response = res;
    session = new TapSession(res, { tap: 'tap_slow', limit: 10_000, seconds: 60, onEnd: () => undefined });
    session.begin();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  // A client that sends its request and then reads nothing.
  client = connect(port, '127.0.0.1');
  client.pause();
  client.write('GET /tap HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
  while (session === undefined) await new Promise((r) => setTimeout(r, 5));

  // 100 events of 200 KB within a second (the tap's rate): 20 MB, more than loopback's socket buffers take.
  const payload = Buffer.from(JSON.stringify({ pad: 'x'.repeat(200_000) }));
  const line = payload.length + 8;
  let most = 0;
  for (let i = 0; i < 100; i++) {
    session.event(payload);
    most = Math.max(most, response!.writableLength);
    await new Promise((r) => setImmediate(r));
  }
  // What the session holds unsent never passes its bound by more than the one event that filled it.
  expect(most).toBeLessThanOrEqual(TAP_BUFFER_BYTES + line);

  // The client reads at last: the events it was sent, then how many were skipped.
  let text = '';
  client.setEncoding('utf8');
  client.on('data', (chunk: string) => (text += chunk));
  client.resume();
  const note = /: skipped (\d+) events \(the client read too slowly\)/;
  for (let waited = 0; !note.test(text); waited += 20) {
    if (waited > 10_000) throw new Error(`no skipped note within 10 s; read ${text.length} characters`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const sent = text.split('\n').filter((l) => l.startsWith('data: ')).length;
  const skipped = Number(note.exec(text)![1]);
  expect(skipped).toBeGreaterThan(0);
  expect(sent + skipped).toBe(100);
  session.end('done');
});
