// Tests of the option parsing of `edge-events produce`: defaults from the environment and refused combinations.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/command.js';
import { parseProduceOptions } from '../../../src/cli/produce-command.js';

describe('produce options', () => {
  it('should default to KAFKA_BROKERS and the service topics, else to 127.0.0.1:9092 and the default topics', () => {
    const fromEnv = parseProduceOptions([], { KAFKA_BROKERS: '127.0.0.1:19092', TOPIC_TCP_CONNECTION_CLOSED: 'my.tcp' });
    expect(fromEnv.brokers).toBe('127.0.0.1:19092');
    expect(fromEnv.topics).toEqual({ 'http_request_complete.v0': 'edge.traffic.http_request_complete.v0', 'tcp_connection_closed.v0': 'my.tcp' });
    const bare = parseProduceOptions([], {});
    expect(bare.brokers).toBe('127.0.0.1:9092');
    expect(bare.count).toBe(10_000);
    expect(bare.rate).toBeUndefined();
    expect(bare.form).toBe('avro');
  });

  it('should read rate, count, duration and the generator settings', () => {
    const o = parseProduceOptions(['--rate', '2500', '--count', '50000', '--duration', '1.5', '--http-share', '0.5', '--seed', '7', '--epoch', '2024-05-01T00:00:00Z', '--form', 'json'], {});
    expect(o).toMatchObject({ rate: 2500, count: 50_000, durationMs: 1500, httpShare: 0.5, seed: 7, epochMs: Date.UTC(2024, 4, 1), form: 'json' });
  });

  it('should send every record to --topic only when the mix has a single event type', () => {
    const o = parseProduceOptions(['--topic', 'raw.http', '--http-share', '1'], {});
    expect(o.topics).toEqual({ 'http_request_complete.v0': 'raw.http', 'tcp_connection_closed.v0': 'raw.http' });
    expect(() => parseProduceOptions(['--topic', 'raw'], {})).toThrow(/single type|--http-share/);
    expect(() => parseProduceOptions(['--topic', 'raw', '--http-share', '0', '--tcp-topic', 'x'], {})).toThrow(UsageError);
  });

  it('should refuse values that make no sense as a usage error', () => {
    for (const args of [['--rate', '0'], ['--rate', 'fast'], ['--count', '-1'], ['--count', '1.5'], ['--http-share', '2'], ['--form', 'xml'], ['--brokers', 'nohost'], ['--epoch', 'yesterday'], ['--bogus', '1']]) {
      expect(() => parseProduceOptions(args, {}), args.join(' ')).toThrow(UsageError);
    }
  });

  it('should pick a client network and a TCP port for half the traffic unless a share is given', () => {
    const o = parseProduceOptions(['--client-network', '10.0.0.0/8', '--tcp-port', '443', '--tcp-port-share', '0.2'], {});
    expect(o.clientNetwork).toEqual({ cidr: '10.0.0.0/8', share: 0.5 });
    expect(o.tcpPort).toEqual({ port: 443, share: 0.2 });
    expect(parseProduceOptions([], {}).clientNetwork).toBeUndefined();
    expect(parseProduceOptions(['--http-host', 'www.shop.example.com'], {}).httpHost).toEqual({ name: 'www.shop.example.com', share: 0.5 });
    expect(parseProduceOptions(['--http-host', 'a.example', '--http-host-share', '1'], {}).httpHost).toEqual({ name: 'a.example', share: 1 });
    for (const args of [['--client-network', '10.0.0.0'], ['--client-network-share', '0.5'], ['--tcp-port', '0'], ['--tcp-port-share', '0.5'], ['--tcp-port', '443', '--tcp-port-share', '2'], ['--http-host', 'not a host'], ['--http-host-share', '0.5'], ['--http-host', 'a.example', '--http-host-share', '-1']]) {
      expect(() => parseProduceOptions(args, {}), args.join(' ')).toThrow(UsageError);
    }
  });
});
