// `edge-events produce`: a load tool that sends generated traffic records to the raw topics at a rate, for a bounded count.
import { parseArgs } from 'node:util';
import { parseBrokers } from '../kafka/client.js';
import { parseCIDR } from '../net/ip.js';
import type { WireForm } from '../records/record-types.js';
import { TrafficGenerator, cycleOf, DEFAULT_TRAFFIC_OPTIONS } from '../traffic/generator.js';
import { produceTraffic, type TrafficTopics } from '../traffic/kafka-traffic.js';
import { EXIT_FAILURE, EXIT_OK, UsageError, type CliIO, type Command } from './command.js';

const DEFAULT_COUNT = 10_000;
/** Share of the clients (or connections) that --client-network (or --tcp-port) applies to, when not given. */
const DEFAULT_PICKED_SHARE = 0.5;
const HTTP_TOPIC = 'edge.traffic.http_request_complete.v0';
const TCP_TOPIC = 'edge.traffic.tcp_connection_closed.v0';

const USAGE = `Usage: edge-events produce [--rate N] [--count M] [options]

Sends realistic generated traffic records (both traffic types, Avro by default) to the raw topics and
stops after --count records or --duration seconds, whichever comes first. Progress goes to stderr.

Options:
  --rate <N>            records per second (default: as fast as the broker acknowledges)
  --count <M>           records to send (default ${DEFAULT_COUNT.toLocaleString('en-US')})
  --duration <S>        stop after S seconds even if --count is not reached
  --brokers <list>      host:port[,host:port] (default KAFKA_BROKERS, else 127.0.0.1:9092)
  --http-topic <name>   topic of http_request_complete.v0 records (default TOPIC_HTTP_REQUEST_COMPLETE, else ${HTTP_TOPIC})
  --tcp-topic <name>    topic of tcp_connection_closed.v0 records (default TOPIC_TCP_CONNECTION_CLOSED, else ${TCP_TOPIC})
  --topic <name>        one topic for every record; needs a single type (--http-share 0 or 1)
  --http-share <0..1>   share of http_request_complete.v0 records (default ${DEFAULT_TRAFFIC_OPTIONS.httpShare})
  --hosts <N>           HTTP hostnames, Zipf-distributed (default ${DEFAULT_TRAFFIC_OPTIONS.httpHosts}); TCP addresses are 2/5 of that
  --ipv6-share <0..1>   share of IPv6 clients (default ${DEFAULT_TRAFFIC_OPTIONS.ipv6Share})
  --client-network <cidr>
                        also draw clients from this network, e.g. 10.0.0.0/8 (the generated
                        networks are public ones), for --client-network-share of all clients
  --client-network-share <0..1>  (default ${DEFAULT_PICKED_SHARE})
  --tcp-port <port>     let --tcp-port-share of the TCP connections arrive on this port, e.g. 443
                        (generated TCP addresses use ports 10000-29999)
  --tcp-port-share <0..1>        (default ${DEFAULT_PICKED_SHARE})
  --http-host <name>    send --http-host-share of the HTTP requests to this hostname, e.g. one
                        under a domain your account reserved (generated hostnames are random)
  --http-host-share <0..1>       (default ${DEFAULT_PICKED_SHARE})
  --form <form>         avro, confluent or json (default avro)
  --seed <N>            seed of the records: the same seed gives the same records (default 1)
  --epoch <time>        event time of the first record, RFC 3339 or "now" (default now); later
                        records follow at --rate (or 10,000/s), so --seed and --epoch fix the output
  --distinct <K>        encode only K records and repeat them, for rates above what encoding allows
  --partitions <N>      partitions of topics that do not exist yet (default 6)
  -h, --help            show this text

Exit codes: 0 done, 1 the broker refused or could not be reached, 2 bad usage.
`;

interface ProduceOptions {
  readonly rate: number | undefined;
  readonly count: number;
  readonly durationMs: number | undefined;
  readonly brokers: string;
  readonly topics: TrafficTopics;
  readonly httpShare: number;
  readonly hosts: number;
  readonly ipv6Share: number;
  readonly form: WireForm;
  readonly seed: number;
  readonly epochMs: number;
  readonly distinct: number | undefined;
  readonly partitions: number;
  readonly clientNetwork: { readonly cidr: string; readonly share: number } | undefined;
  readonly tcpPort: { readonly port: number; readonly share: number } | undefined;
  readonly httpHost: { readonly name: string; readonly share: number } | undefined;
}

function number(name: string, raw: string | undefined, check: (n: number) => boolean, rule: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n)) throw new UsageError(`--${name} must be ${rule}, got "${raw}".`);
  return n;
}

const positive = (n: number): boolean => n > 0;
const whole = (n: number): boolean => Number.isInteger(n) && n >= 1;
const share = (n: number): boolean => n >= 0 && n <= 1;

export function parseProduceOptions(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ProduceOptions {
  const strings = ['rate', 'count', 'duration', 'brokers', 'http-topic', 'tcp-topic', 'topic', 'http-share', 'hosts', 'ipv6-share', 'form', 'seed', 'epoch', 'distinct', 'partitions', 'client-network', 'client-network-share', 'tcp-port', 'tcp-port-share', 'http-host', 'http-host-share'] as const;
  let values: Partial<Record<(typeof strings)[number], string>>;
  try {
    values = parseArgs({ args: [...args], options: Object.fromEntries(strings.map((s) => [s, { type: 'string' as const }])), strict: true }).values as typeof values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const httpShare = number('http-share', values['http-share'], share, 'between 0 and 1') ?? DEFAULT_TRAFFIC_OPTIONS.httpShare;
  const single = values.topic;
  if (single !== undefined && httpShare !== 0 && httpShare !== 1) {
    throw new UsageError('--topic sends every record to one topic, and a topic carries one event type: add --http-share 1 or --http-share 0.');
  }
  if (single !== undefined && (values['http-topic'] !== undefined || values['tcp-topic'] !== undefined)) {
    throw new UsageError('--topic cannot be combined with --http-topic or --tcp-topic.');
  }
  const brokers = values.brokers ?? (env.KAFKA_BROKERS || '127.0.0.1:9092');
  try {
    parseBrokers(brokers);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const form = values.form ?? 'avro';
  if (form !== 'avro' && form !== 'confluent' && form !== 'json') throw new UsageError(`--form must be avro, confluent or json, got "${form}".`);
  const epochText = values.epoch ?? 'now';
  const epochMs = epochText === 'now' ? Date.now() : Date.parse(epochText);
  if (Number.isNaN(epochMs)) throw new UsageError(`--epoch must be an RFC 3339 time or "now", got "${epochText}".`);
  const hosts = number('hosts', values.hosts, whole, 'a whole number >= 1') ?? DEFAULT_TRAFFIC_OPTIONS.httpHosts;
  const duration = number('duration', values.duration, positive, 'a positive number of seconds');
  const cidr = values['client-network'];
  if (cidr !== undefined && parseCIDR(cidr) === undefined) throw new UsageError(`--client-network must be a CIDR such as 10.0.0.0/8, got "${cidr}".`);
  const networkShare = number('client-network-share', values['client-network-share'], share, 'between 0 and 1');
  if (networkShare !== undefined && cidr === undefined) throw new UsageError('--client-network-share needs --client-network.');
  const port = number('tcp-port', values['tcp-port'], (n) => Number.isInteger(n) && n >= 1 && n <= 65_535, 'a port number from 1 to 65535');
  const portShare = number('tcp-port-share', values['tcp-port-share'], share, 'between 0 and 1');
  if (portShare !== undefined && port === undefined) throw new UsageError('--tcp-port-share needs --tcp-port.');
  const host = values['http-host'];
  if (host !== undefined && !/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/i.test(host)) throw new UsageError(`--http-host must be a hostname such as www.shop.example.com, got "${host}".`);
  const hostShare = number('http-host-share', values['http-host-share'], share, 'between 0 and 1');
  if (hostShare !== undefined && host === undefined) throw new UsageError('--http-host-share needs --http-host.');
  return {
    rate: number('rate', values.rate, positive, 'a positive number of records per second'),
    count: number('count', values.count, (n) => Number.isInteger(n) && n >= 0, 'a whole number >= 0') ?? DEFAULT_COUNT,
    durationMs: duration === undefined ? undefined : duration * 1000,
    brokers,
    topics: {
      'http_request_complete.v0': single ?? values['http-topic'] ?? (env.TOPIC_HTTP_REQUEST_COMPLETE || HTTP_TOPIC),
      'tcp_connection_closed.v0': single ?? values['tcp-topic'] ?? (env.TOPIC_TCP_CONNECTION_CLOSED || TCP_TOPIC),
    },
    httpShare,
    hosts,
    ipv6Share: number('ipv6-share', values['ipv6-share'], share, 'between 0 and 1') ?? DEFAULT_TRAFFIC_OPTIONS.ipv6Share,
    form,
    seed: number('seed', values.seed, (n) => Number.isInteger(n), 'a whole number') ?? 1,
    epochMs,
    distinct: number('distinct', values.distinct, whole, 'a whole number >= 1'),
    partitions: number('partitions', values.partitions, whole, 'a whole number >= 1') ?? 6,
    clientNetwork: cidr === undefined ? undefined : { cidr, share: networkShare ?? DEFAULT_PICKED_SHARE },
    tcpPort: port === undefined ? undefined : { port, share: portShare ?? DEFAULT_PICKED_SHARE },
    httpHost: host === undefined ? undefined : { name: host, share: hostShare ?? DEFAULT_PICKED_SHARE },
  };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

async function run(args: readonly string[], io: CliIO): Promise<number> {
  const o = parseProduceOptions(args);
  const generator = new TrafficGenerator({
    seed: o.seed,
    httpShare: o.httpShare,
    httpHosts: o.hosts,
    tcpAddresses: Math.max(1, Math.round(o.hosts * 0.4)),
    ipv6Share: o.ipv6Share,
    epochMs: o.epochMs,
    eventsPerSecond: o.rate ?? 10_000,
    ...(o.clientNetwork !== undefined && { clientNetwork: o.clientNetwork }),
    ...(o.tcpPort !== undefined && { tcpPort: o.tcpPort }),
    ...(o.httpHost !== undefined && { httpHost: o.httpHost }),
  });
  const source = o.distinct === undefined ? () => generator.nextMessage(o.form) : cycleOf(generator, Math.min(o.distinct, Math.max(1, o.count)), o.form);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  io.stderr.write(`Sending ${fmt(o.count)} records${o.rate === undefined ? '' : ` at ${fmt(o.rate)}/s`} to ${o.brokers} (${[...new Set(Object.values(o.topics))].join(', ')}).\n`);
  try {
    const summary = await produceTraffic({
      brokers: o.brokers,
      clientId: 'edge-events-produce',
      topics: o.topics,
      source,
      count: o.count,
      rate: o.rate,
      maxDurationMs: o.durationMs,
      partitions: o.partitions,
      signal: stop.signal,
      onProgress: (p) => io.stderr.write(`  ${fmt(p.sent)} / ${fmt(p.target)} sent, ${fmt(p.ratePerSecond)}/s, ${(p.elapsedMs / 1000).toFixed(1)} s\n`),
    });
    const why = summary.stoppedBy === 'count' ? '' : summary.stoppedBy === 'time' ? ' (stopped by --duration)' : ' (interrupted)';
    io.stdout.write(`Sent ${fmt(summary.sent)} records in ${(summary.elapsedMs / 1000).toFixed(1)} s: ${fmt(summary.ratePerSecond)} records/s${why}.\n`);
    return EXIT_OK;
  } catch (err) {
    io.stderr.write(`edge-events produce: sending failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_FAILURE;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export const produceCommand: Command = {
  name: 'produce',
  summary: 'send generated traffic records to the raw topics (a load tool)',
  usage: USAGE,
  run,
};
