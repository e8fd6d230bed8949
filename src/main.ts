// The entry point: load the config, start the local broker when KAFKA_BROKERS is unset, run the service,
// and drain on SIGTERM or SIGINT.
import { setFlagsFromString } from 'node:v8';
import { buildApp } from './app.js';
import { ConfigError, loadServiceConfig, v8Flags } from './config/service-config.js';
import { DEFAULT_DATA_DIR, startLocalBroker, type LocalBroker } from './kafka/local-broker.js';
import { createLogger } from './telemetry/logger.js';

const log = createLogger('main');

async function main(): Promise<void> {
  const config = loadServiceConfig();
  const flags = v8Flags(config);
  for (const flag of flags) setFlagsFromString(flag);
  if (flags.length > 0) log.info({ flags }, 'V8 flags set for this worker.');
  let broker: LocalBroker | undefined;
  let brokers = config.kafkaBrokers;
  if (brokers === undefined) {
    log.info('KAFKA_BROKERS is unset: starting the local single-node broker on 127.0.0.1:9092.');
    broker = await startLocalBroker({ port: 9092, controllerPort: 9093, dataDir: DEFAULT_DATA_DIR });
    brokers = broker.brokers;
    log.info({ brokers, startupMs: broker.startupMs }, 'The local broker is ready.');
  }
  const app = buildApp(config, brokers);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'A stop signal arrived.');
    void app
      .stop()
      .then(() => broker?.stop())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'The service did not stop cleanly.');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    await app.start();
  } catch (err) {
    await app.stop().catch(() => undefined);
    await broker?.stop();
    throw err;
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  log.fatal({ err }, 'The service failed to start.');
  process.exit(1);
});
