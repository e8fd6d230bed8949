// Restart after kill -9: how long a restarted local service (`npm start`, its own broker) takes to consume
// again, with the local 6 s consumer session against the 30 s one used with a broker of one's own.
import { cpus, loadavg } from 'node:os';
import { createClient } from '../src/kafka/client.js';
import { TrafficGenerator } from '../src/traffic/generator.js';
import { localSetup, startLocalService, waitGone, type LocalService } from '../test/support/local-service.js';
import { GroupProcess } from '../test/support/process-group.js';
import { benchTarget } from './lib/targets.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const ROUNDS = Number(process.env.BENCH_RESTART_ROUNDS ?? 3);
const TCP_TOPIC = 'edge.traffic.tcp_connection_closed.v0';
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;

/** The service's edge_records_consumed_total, or undefined while it does not answer. */
async function consumed(apiUrl: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${apiUrl}/metrics`)).text();
    let sum = 0;
    for (const line of text.split('\n')) if (line.startsWith('edge_records_consumed_total')) sum += Number(line.split(' ').at(-1));
    return sum;
  } catch {
    return undefined;
  }
}

async function until(test: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Measured {
  readonly readyS: number;
  readonly consumingS: number;
}

async function measure(ctx: BenchContext, name: string, extra: Record<string, string>): Promise<Measured[]> {
  const setup = await localSetup(extra);
  let current: LocalService | GroupProcess = await startLocalService(setup);
  const brokerPid = current.brokerPid;
  const kafka = createClient({ clientId: 'restart-bench', brokers: `127.0.0.1:${setup.brokerPort}` });
  const producer = kafka.idempotentProducer({ retries: 10 });
  await producer.connect();
  // A steady trickle, so "consumes again" means the first record the new worker takes after the kill.
  const generator = new TrafficGenerator({ httpShare: 0 });
  const timer = setInterval(() => {
    const m = generator.nextMessage('avro');
    void producer.send(TCP_TOPIC, [{ value: m.value, headers: m.headers }]).catch(() => undefined);
  }, 100);
  const results: Measured[] = [];
  try {
    await until(async () => ((await consumed(setup.apiUrl)) ?? 0) > 0, 60_000, 'the first service consuming');
    for (let r = 0; r < ROUNDS; r++) {
      const pid: number = current instanceof GroupProcess ? current.childPid() : current.pid;
      process.kill(pid, 'SIGKILL');
      const killed = Date.now();
      const npm = new GroupProcess('npm', ['start'], process.cwd(), setup.env);
      current = npm;
      await until(async () => ((await consumed(setup.apiUrl)) ?? 0) > 0, 120_000, 'the restarted service consuming');
      const consumingS = (Date.now() - killed) / 1000;
      const readyLine = await npm.lineMatching((l) => l.includes('"The service is ready."'), 30_000);
      const readyS = (Date.parse((JSON.parse(readyLine) as { time: string }).time) - killed) / 1000;
      results.push({ readyS, consumingS });
      ctx.progress(`${name}, round ${r + 1}: ready ${round(readyS)} s and consuming ${round(consumingS)} s after kill -9`);
    }
  } finally {
    clearInterval(timer);
    await producer.close().catch(() => undefined);
    await (current instanceof GroupProcess ? current : current.npm).stop();
    await waitGone(brokerPid, 30_000);
  }
  return results;
}

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const loadBefore = loadavg()[0] ?? 0;
  const configurations: Array<{ name: string; extra: Record<string, string> }> = [
    { name: 'local default: 6 s session', extra: {} },
    { name: 'CONSUMER_SESSION_TIMEOUT_MS=30000', extra: { CONSUMER_SESSION_TIMEOUT_MS: '30000' } },
  ];
  const rows: BenchRow[] = [];
  const worst = new Map<string, number>();
  for (const c of configurations) {
    const measured = await measure(ctx, c.name, c.extra);
    measured.forEach((m, i) => rows.push({ configuration: c.name, round: i + 1, 'kill -9 to ready (s)': round(m.readyS), 'kill -9 to consuming again (s)': round(m.consumingS) }));
    worst.set(c.name, Math.max(...measured.map((m) => m.consumingS)));
  }
  const local = worst.get(configurations[0]?.name ?? '') ?? Number.NaN;
  return {
    title: 'Restart after kill -9: time until the local service consumes again',
    usesKafka: true,
    settings: { rounds: ROUNDS },
    rows,
    notes: [
      `Target: a restarted local service consumes again within 10 s of kill -9. Worst round with the local default: ${round(local)} s (${local <= 10 ? 'met' : 'missed'}).`,
      'The broker outlives the killed service (it runs in its own process group) and the restart reuses it; what remains is the restart itself (npm start: an incremental build, then node) and the killed worker\'s group membership, which the broker ends only when its session times out, so a short session is the lever; a 30 s session, the default with a broker of one\'s own, shows why.',
      `Method: npm start in local mode with its broker data, API port and files in a temporary folder; one tcp_connection_closed.v0 record produced every 100 ms throughout; kill -9 of the service's node process, then npm start again at once; "consuming" is the first /metrics answer of the new process with edge_records_consumed_total above 0, polled every 50 ms; "ready" is the time of its "The service is ready." log line. ${ROUNDS} rounds per configuration, each killing the previous round's service.`,
      `Machine: ${cpus().length} cores, shared; load average ${round(loadBefore)} at the start, ${round(loadavg()[0] ?? 0)} at the end.`,
    ],
    targets: [
      benchTarget(
        'restart: the local service consumes again after kill -9 (worst round)',
        '<= 10 s',
        `${round(local)} s`,
        local <= 10,
        'The restart waits for npm start\'s build and for the killed worker\'s group session (6 s locally) to time out: RELIABILITY.md, "1. kill -9".',
      ),
    ],
  };
}
