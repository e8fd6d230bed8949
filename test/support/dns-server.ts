// A real DNS server on 127.0.0.1 for tests (dns2, the DNS wire protocol over UDP on a free port): it answers
// TXT questions from a table the test fills, NXDOMAIN for names it has nothing for, nothing at all for the
// names in `silent` (the asker times out), and keeps the questions.
import dns2 from 'dns2';

const { Packet } = dns2;
/** RFC 1035 4.1.1: the name does not exist (dns2's Packet.RCODE, which its types leave out). */
const NXDOMAIN = 3;

export interface TestDnsServer {
  /** "127.0.0.1:<port>", as DNS_RESOLVER takes it. */
  readonly address: string;
  /** The TXT records of each name (lowercase); each record is its character strings. */
  readonly txt: Map<string, string[][]>;
  /** The names asked for, in order. */
  readonly questions: string[];
  /** Names (lowercase) it never answers. */
  readonly silent: Set<string>;
  stop(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const txt = new Map<string, string[][]>();
  const questions: string[] = [];
  const silent = new Set<string>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      if (request.questions.some((q) => silent.has(q.name.toLowerCase()))) {
        for (const q of request.questions) questions.push(q.name.toLowerCase());
        return;
      }
      const response = Packet.createResponseFromRequest(request);
      for (const q of request.questions) {
        const name = q.name.toLowerCase();
        questions.push(name);
        const records = txt.get(name);
        if (records === undefined) response.header.rcode = NXDOMAIN;
        else if (q.type === Packet.TYPE.TXT) {
          // dns2 writes an array of strings as a record's character strings; its types say one string.
          for (const data of records) response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as unknown as (typeof response.answers)[number]);
        }
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (addresses as { udp?: { port: number } }).udp?.port;
  if (port === undefined) throw new Error('the test DNS server did not listen on UDP');
  return { address: `127.0.0.1:${port}`, txt, questions, silent, stop: () => server.close() };
}
