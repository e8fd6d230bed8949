// A broker for the Kafka benchmarks: the project's local broker on 127.0.0.1 with free ports, started with throughput JVM flags.
import { startLocalBroker, type LocalBroker } from '../../src/kafka/local-broker.js';

/**
 * The local broker's own flags favour a fast start (C1-only JIT, serial GC, 512 MB heap) because the
 * test suite restarts it often. A benchmark runs minutes of load, so it asks for the full tiered JIT
 * (C2) and a larger fixed heap through EDGE_KAFKA_JVM_OPTS, which local-broker.ts appends after its
 * own flags (the JVM takes the last value of a repeated flag). A value set by the caller wins.
 */
export const BENCH_JVM_OPTS = '-XX:TieredStopAtLevel=4 -Xms768m -Xmx768m';

export interface BenchBroker extends LocalBroker {
  readonly jvmOpts: string;
}

export async function startBenchBroker(progress: (m: string) => void): Promise<BenchBroker> {
  const jvmOpts = process.env.EDGE_KAFKA_JVM_OPTS ?? BENCH_JVM_OPTS;
  const previous = process.env.EDGE_KAFKA_JVM_OPTS;
  process.env.EDGE_KAFKA_JVM_OPTS = jvmOpts;
  try {
    progress(`starting a local Kafka broker on 127.0.0.1 (extra JVM flags: ${jvmOpts})`);
    const broker = await startLocalBroker({ onProgress: (line) => progress(line) });
    progress(`Kafka ${broker.version} ready at ${broker.brokers} in ${broker.startupMs} ms`);
    return { ...broker, jvmOpts };
  } finally {
    if (previous === undefined) delete process.env.EDGE_KAFKA_JVM_OPTS;
    else process.env.EDGE_KAFKA_JVM_OPTS = previous;
  }
}
