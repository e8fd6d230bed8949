// Command line for the local broker: `tsx src/kafka/local-broker-cli.ts fetch|start|stop [--port N] [--controller-port N] [--data-dir DIR]`.
import { parseArgs } from 'node:util';
import { ensureBrokerJars, pinnedKafkaVersion } from './broker-jars.js';
import { leftoverBroker, ownerAlive, removeBrokerRecord } from './leftover-broker.js';
import { DEFAULT_CONTROLLER_PORT, DEFAULT_DATA_DIR, DEFAULT_PORT, startLocalBroker } from './local-broker.js';
import { stopProcess } from './process-guard.js';

const USAGE = `usage: local-broker-cli fetch
       local-broker-cli start [--port 9092] [--controller-port PORT+1] [--data-dir DIR]
       local-broker-cli stop [--data-dir DIR]

fetch  downloads the pinned Kafka broker's jars with Maven, unless they are cached.
start  runs a single-node KRaft broker on 127.0.0.1 until Ctrl-C; its data persists in DIR
       (default .local/kafka/data), formatted on first use only.
stop   stops the broker a killed service left running in DIR (the next npm start would reuse it).`;

function portOption(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`Not a port number: ${value}`);
  return port;
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      'controller-port': { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (values.help || (command !== 'fetch' && command !== 'start' && command !== 'stop')) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (command === 'fetch') {
    const libs = await ensureBrokerJars();
    process.stdout.write(`Kafka ${pinnedKafkaVersion()} broker jars are in ${libs}\n`);
    return 0;
  }
  if (command === 'stop') {
    const dataDir = values['data-dir'] ?? DEFAULT_DATA_DIR;
    const leftover = await leftoverBroker(dataDir);
    if (leftover === undefined) {
      process.stdout.write(`No broker is running from ${dataDir}.\n`);
      return 0;
    }
    if (ownerAlive(leftover)) {
      process.stderr.write(`The broker in ${dataDir} belongs to a running service (pid ${leftover.ownerPid}); stop that service instead (Ctrl-C).\n`);
      return 1;
    }
    await stopProcess(leftover.pid, 20_000);
    await removeBrokerRecord(dataDir);
    process.stdout.write(`Stopped the broker (pid ${leftover.pid}) on 127.0.0.1:${leftover.port}.\n`);
    return 0;
  }
  const port = portOption(values.port, DEFAULT_PORT);
  const broker = await startLocalBroker({
    port,
    controllerPort: portOption(values['controller-port'], values.port === undefined ? DEFAULT_CONTROLLER_PORT : port + 1),
    dataDir: values['data-dir'] ?? DEFAULT_DATA_DIR,
  });
  process.stdout.write(
    `Kafka ${broker.version} is ready at ${broker.brokers} (pid ${broker.pid}, ${broker.startupMs} ms); log: ${broker.logFile}\nPress Ctrl-C to stop it.\n`,
  );
  // Our own handlers, so the broker is stopped cleanly (and awaited) before this process exits.
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await broker.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const code = (err as { code?: unknown }).code;
    process.stderr.write(`${typeof code === 'string' ? `${code}: ` : ''}${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
