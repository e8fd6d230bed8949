// Unit tests of the service config: the heap setting (HEAP_GROWTH_PERCENT), INSTANCE_ID and SUBSCRIPTION_CLOCK_SKEW_MS.
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadServiceConfig } from '../../../src/config/service-config.js';

const problemsOf = (env: NodeJS.ProcessEnv): readonly string[] => {
  try {
    loadServiceConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('HEAP_GROWTH_PERCENT', () => {
  it('should leave the growth to follow the time full collections take when unset or empty', () => {
    expect(loadServiceConfig({}).heapGrowthPercent).toBeUndefined();
    expect(loadServiceConfig({ HEAP_GROWTH_PERCENT: '' }).heapGrowthPercent).toBeUndefined();
  });

  it('should accept 0 (V8 decides) and every integer from 10 to 300', () => {
    for (const v of [0, 10, 55, 300]) expect(loadServiceConfig({ HEAP_GROWTH_PERCENT: String(v) }).heapGrowthPercent).toBe(v);
  });

  it('should refuse values below 10 other than 0, above 300, fractions and words, naming the setting', () => {
    for (const raw of ['5', '301', '-10', '12.5', 'thirty']) {
      expect(problemsOf({ HEAP_GROWTH_PERCENT: raw })).toEqual([
        `HEAP_GROWTH_PERCENT must be 0 (V8's default) or an integer from 10 to 300, got "${raw}"`,
      ]);
    }
  });

  it('should report a bad value together with the other problems of the environment', () => {
    expect(problemsOf({ HEAP_GROWTH_PERCENT: '1000', DRAIN_TIMEOUT_MS: 'soon' })).toHaveLength(2);
  });
});

describe('settings of a first local run', () => {
  it('should use a 6 s consumer session when the service runs its own broker, 30 s otherwise, and an explicit value always', () => {
    expect(loadServiceConfig({}).consumerSessionTimeoutMs).toBe(6_000);
    expect(loadServiceConfig({ KAFKA_BROKERS: 'kafka:9092' }).consumerSessionTimeoutMs).toBe(30_000);
    expect(loadServiceConfig({ CONSUMER_SESSION_TIMEOUT_MS: '10000' }).consumerSessionTimeoutMs).toBe(10_000);
  });

  it('should write a generated token to .local/api-token unless API_TOKEN_FILE names another file', () => {
    expect(loadServiceConfig({}).apiTokenFile).toBe('.local/api-token');
    expect(loadServiceConfig({ API_TOKEN_FILE: '/run/edge/token' }).apiTokenFile).toBe('/run/edge/token');
  });

  it('should accept LOG_FORMAT json or pretty and refuse anything else', () => {
    expect(problemsOf({ LOG_FORMAT: 'json' })).toEqual([]);
    expect(problemsOf({ LOG_FORMAT: 'pretty' })).toEqual([]);
    expect(problemsOf({ LOG_FORMAT: 'yaml' })).toEqual(['LOG_FORMAT must be json or pretty, got "yaml"']);
  });
});

describe('INSTANCE_ID', () => {
  it('should default to the host name and the port, the same for a process restarted on that port', () => {
    const a = loadServiceConfig({ PORT: '8080' }).instanceId;
    expect(a).toBe(`${hostname()}:8080`);
    expect(loadServiceConfig({ PORT: '8080' }).instanceId).toBe(a);
    expect(loadServiceConfig({ PORT: '8081' }).instanceId).not.toBe(a);
  });

  it('should give processes on any free port (PORT=0) distinct ids', () => {
    expect(loadServiceConfig({ PORT: '0' }).instanceId).not.toBe(loadServiceConfig({ PORT: '0' }).instanceId);
  });

  it('should take a configured id and refuse one with other characters', () => {
    expect(loadServiceConfig({ INSTANCE_ID: 'api-0.edge' }).instanceId).toBe('api-0.edge');
    expect(problemsOf({ INSTANCE_ID: 'a b' })).toEqual([`INSTANCE_ID may hold 1 to 200 letters, digits, '.', '_', ':' and '-', got "a b"`]);
  });
});

describe('SUBSCRIPTION_CLOCK_SKEW_MS', () => {
  it('should default to 5 s and take 0 to an hour', () => {
    expect(loadServiceConfig({}).subscriptionClockSkewMs).toBe(5_000);
    expect(loadServiceConfig({ SUBSCRIPTION_CLOCK_SKEW_MS: '0' }).subscriptionClockSkewMs).toBe(0);
    expect(problemsOf({ SUBSCRIPTION_CLOCK_SKEW_MS: '-1' })).toEqual(['SUBSCRIPTION_CLOCK_SKEW_MS must be an integer from 0 to 3600000, got "-1"']);
  });
});

describe('settings of destination topics and status', () => {
  it("should leave a created kafka destination topic's partitions and replication to the broker unless set, and refuse values out of range", () => {
    expect(loadServiceConfig({}).kafkaDestinationTopics).toEqual({ partitions: undefined, replicationFactor: undefined });
    expect(loadServiceConfig({ KAFKA_DESTINATION_PARTITIONS: '6', KAFKA_DESTINATION_REPLICATION_FACTOR: '3' }).kafkaDestinationTopics).toEqual({ partitions: 6, replicationFactor: 3 });
    expect(problemsOf({ KAFKA_DESTINATION_PARTITIONS: '0', KAFKA_DESTINATION_REPLICATION_FACTOR: '17' })).toEqual([
      'KAFKA_DESTINATION_PARTITIONS must be an integer from 1 to 1000, got "0"',
      'KAFKA_DESTINATION_REPLICATION_FACTOR must be an integer from 1 to 16, got "17"',
    ]);
  });

  it('should publish destination status on edge.status every 15 s unless told otherwise', () => {
    expect(loadServiceConfig({}).topics.status).toBe('edge.status');
    expect(loadServiceConfig({}).statusReportIntervalMs).toBe(15_000);
    expect(loadServiceConfig({}).topics).toMatchObject({ history: 'edge.history', historyHours: 'edge.history.hours' });
    expect(loadServiceConfig({}).history).toEqual({ minuteMs: 60_000, minuteRetentionMs: 86_400_000, hourRetentionMs: 30 * 86_400_000 });
    // A retention shorter than one point of its resolution keeps nothing: refused, as every setting's problem, at start.
    expect(() => loadServiceConfig({ HISTORY_MINUTE_MS: '1000', HISTORY_MINUTE_RETENTION_MS: '999', HISTORY_HOUR_RETENTION_MS: '59999' })).toThrow(/HISTORY_MINUTE_RETENTION_MS must be an integer from 1000 to 604800000.*HISTORY_HOUR_RETENTION_MS must be an integer from 60000/s);
    expect(problemsOf({ STATUS_REPORT_INTERVAL_MS: '500' })).toEqual(['STATUS_REPORT_INTERVAL_MS must be an integer from 1000 to 600000, got "500"']);
  });

  it('should report a record unsettled for 5 minutes unless told otherwise, and refuse a bound under a second', () => {
    expect(loadServiceConfig({}).stalledRecordAfterMs).toBe(300_000);
    expect(loadServiceConfig({ STALLED_RECORD_AFTER_MS: '60000' }).stalledRecordAfterMs).toBe(60_000);
    expect(problemsOf({ STALLED_RECORD_AFTER_MS: '0' })).toEqual(['STALLED_RECORD_AFTER_MS must be an integer from 1000 to 86400000, got "0"']);
  });
});

describe('DNS_RESOLVER', () => {
  it('should take an IP address with an optional port, IPv6 in brackets, and default to the system resolvers', () => {
    expect(loadServiceConfig({}).dnsResolver).toBeUndefined();
    for (const ok of ['127.0.0.1', '127.0.0.1:5353', '[::1]', '[::1]:53']) expect([ok, loadServiceConfig({ DNS_RESOLVER: ok }).dnsResolver]).toEqual([ok, ok]);
  });

  it('should refuse a name, an IPv6 address without brackets, a bracketed IPv4 address and a port out of range', () => {
    for (const bad of ['dns.example.com', '::1', '[127.0.0.1]', '127.0.0.1:0', '127.0.0.1:65536', '127.0.0.1:']) {
      expect([bad, problemsOf({ DNS_RESOLVER: bad })]).toEqual([bad, [expect.stringMatching(/^DNS_RESOLVER must be an IP address/)]]);
    }
  });
});

describe('DOMAIN_RECHECK_INTERVAL_MS', () => {
  it('should re-check pending reserved domains every minute unless told otherwise, 0 turning it off', () => {
    expect(loadServiceConfig({}).domainRecheckIntervalMs).toBe(60_000);
    expect(loadServiceConfig({ DOMAIN_RECHECK_INTERVAL_MS: '0' }).domainRecheckIntervalMs).toBe(0);
    expect(problemsOf({ DOMAIN_RECHECK_INTERVAL_MS: 'often' })).toEqual(['DOMAIN_RECHECK_INTERVAL_MS must be an integer from 0 to 86400000, got "often"']);
  });
});
