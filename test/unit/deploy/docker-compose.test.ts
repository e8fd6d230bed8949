// docker-compose.yml checked without a Docker engine: parsed as YAML, its broker version, build, ports and
// the service's environment are held against the project's own pin, Dockerfile and config.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadServiceConfig } from '../../../src/config/service-config.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface ComposeService {
  image?: string;
  build?: string | { context: string; dockerfile?: string };
  environment?: Record<string, string | number>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(`${ROOT}docker-compose.yml`, 'utf8')) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
const kafka = compose.services.kafka as ComposeService;
const service = compose.services['edge-events'] as ComposeService;
const serviceEnv = service.environment ?? {};
const kafkaEnv = kafka.environment ?? {};

/** Compose's `${NAME:-default}` as the value the container sees when NAME is unset. */
const unsetValue = (value: string | number): string => String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/** Every environment variable name loadServiceConfig reads, recorded as it reads them. */
function namesTheConfigReads(): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy({} as NodeJS.ProcessEnv, {
    get(_target, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadServiceConfig(recording);
  return read;
}

describe('docker-compose.yml', () => {
  it('should run the Kafka image of the version local-kafka/pom.xml pins for the local broker and the tests', () => {
    const pinned = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(`${ROOT}local-kafka/pom.xml`, 'utf8'))?.[1];
    expect(pinned).toBeDefined();
    expect(kafka.image).toBe(`apache/kafka:${pinned}`);
  });

  it("should build the service from the repository's Dockerfile, which runs the compiled entry point with the Node flags of npm start", () => {
    const context = typeof service.build === 'string' ? service.build : service.build?.context;
    expect(context).toBe('.');
    expect(typeof service.build === 'object' ? service.build.dockerfile : undefined).toBeUndefined();
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(`${ROOT}Dockerfile`, 'utf8'))?.[1];
    const start = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;
    const flags = / exec node ((?:--\S+ )*)dist\/main\.js$/.exec(start)?.[1]?.split(' ').filter((f) => f !== '');
    expect(flags).toContain('--max-semi-space-size=16');
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', ...(flags ?? []), 'dist/main.js']);
  });

  it('should set only environment variables the service reads, with values its config accepts', () => {
    const known = namesTheConfigReads();
    // Read by the logger (src/telemetry/logger.ts) rather than the service config.
    known.add('LOG_LEVEL');
    expect(known.has('KAFKA_BROKERS')).toBe(true);
    expect(Object.keys(serviceEnv).filter((name) => !known.has(name))).toEqual([]);
    const env = Object.fromEntries(Object.entries(serviceEnv).map(([name, value]) => [name, unsetValue(value)]));
    const config = loadServiceConfig(env);
    expect(config.kafkaBrokers).toBe('kafka:9092');
    expect(config.host).toBe('0.0.0.0');
  });

  it("should publish the API on the port the service listens on and keep the file root on a volume", () => {
    const port = String(serviceEnv.PORT);
    expect(service.ports).toContain(`${port}:${port}`);
    expect(serviceEnv.PUBLIC_BASE_URL).toBe(`http://localhost:${port}`);
    const [volume, mountPath] = (service.volumes?.[0] ?? '').split(':');
    expect(mountPath).toBe(serviceEnv.FILE_DESTINATION_ROOT);
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  it("should point the service at the broker's in-network listener and publish the host listener on its advertised port", () => {
    const listeners = String(kafkaEnv.KAFKA_LISTENERS).split(',');
    const advertised = String(kafkaEnv.KAFKA_ADVERTISED_LISTENERS).split(',');
    expect(listeners).toContain('PLAINTEXT://:9092');
    expect(advertised).toContain(`PLAINTEXT://${serviceEnv.KAFKA_BROKERS}`);
    const host = advertised.find((l) => l.startsWith('HOST://localhost:'));
    const hostPort = host?.split(':').at(-1);
    expect(listeners).toContain(`HOST://:${hostPort}`);
    expect(kafka.ports).toContain(`${hostPort}:${hostPort}`);
    // Not 9092: `npm start` runs its own broker there.
    expect(hostPort).not.toBe('9092');
  });

  it('should start the service only once the broker answers, and give a stop time for the drain', () => {
    expect(service.depends_on?.kafka?.condition).toBe('service_healthy');
    expect(kafka.healthcheck?.test.join(' ')).toContain('--bootstrap-server localhost:9092');
    const grace = /^(\d+)s$/.exec(String((service as { stop_grace_period?: string }).stop_grace_period))?.[1];
    // The service drains for DRAIN_TIMEOUT_MS (10 s by default) before it exits.
    expect(Number(grace) * 1000).toBeGreaterThan(loadServiceConfig({}).drainTimeoutMs);
  });
});
