// The entry point: load the config, start the local broker when KAFKA_BROKERS is unset, run the service,
// and drain on SIGTERM, SIGINT or SIGHUP.
import { buildApp } from './app.js';
import { startHeapGrowth } from './config/heap-growth.js';
import { ConfigError, loadServiceConfig } from './config/service-config.js';
import { KafkaSetupError } from './kafka/errors.js';
import { DEFAULT_DATA_DIR, startLocalBroker, type LocalBroker } from './kafka/local-broker.js';
import { LOGS_FOR_A_PERSON, createLogger } from './telemetry/logger.js';
import { readySummary } from './telemetry/ready-summary.js';

const log = createLogger('main');

/** After a stop signal, how long draining may take beyond DRAIN_TIMEOUT_MS before the process exits anyway. */
const STOP_GRACE_MS = 15_000;
/**
 * One Ctrl-C under `npm start` arrives twice: the terminal signals its whole foreground group, and npm
 * forwards the signal to the service as well. A repeat within this window is the same keypress.
 */
const SAME_SIGNAL_MS = 1_000;
/** With the local broker gone nothing can be committed: drain what goes elsewhere briefly, then exit. */
const BROKER_GONE_STOP_MS = 5_000;

async function main(): Promise<void> {
  const config = loadServiceConfig();
  if (config.roles.worker) {
    const heap = startHeapGrowth(config.heapGrowthPercent);
    log.debug({ heapGrowthPercent: heap.percent(), moving: config.heapGrowthPercent === undefined }, 'The heap growth of this worker is set.');
  }
  let broker: LocalBroker | undefined;
  let brokers = config.kafkaBrokers;
  if (brokers === undefined) {
    const { port, dataDir } = config.localBroker;
    log.info(`KAFKA_BROKERS is unset: starting the local single-node broker on 127.0.0.1:${port}.`);
    broker = await startLocalBroker({
      port,
      controllerPort: port + 1,
      dataDir: dataDir ?? DEFAULT_DATA_DIR,
      onProgress: (line) => log.info(line),
    });
    brokers = broker.brokers;
  }
  const app = buildApp(config, brokers);

  let stoppingSince: number | undefined;
  const shutdown = (reason: string, exitCode: number, limitMs = config.drainTimeoutMs + STOP_GRACE_MS): void => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < SAME_SIGNAL_MS) return;
      // A second Ctrl-C: the person wants out now. The exit hook still sends the local broker SIGTERM.
      log.warn({ reason }, 'A second stop signal arrived: exiting without waiting for the drain.');
      process.exit(130);
    }
    stoppingSince = Date.now();
    log.info({ reason }, 'A stop signal arrived (press Ctrl-C again to exit at once).');
    // Draining needs the broker; a dead or frozen one would make the Kafka client retry for minutes.
    setTimeout(() => {
      log.error({ limitMs }, 'The service did not stop in time; exiting.');
      process.exit(1);
    }, limitMs).unref();
    void app
      .stop()
      .then(() => broker?.stop())
      .then(
        () => process.exit(exitCode),
        (err: unknown) => {
          log.error({ err }, 'The service did not stop cleanly.');
          process.exit(1);
        },
      );
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal, 0));
  broker?.onUnexpectedExit((how) => {
    log.error({ how, logFile: broker?.logFile }, 'The local Kafka broker exited unexpectedly; the service stops.');
    shutdown('the local broker exited', 1, BROKER_GONE_STOP_MS);
  });
  try {
    const { address, generatedToken } = await app.start();
    const summary = readySummary({ config, address, brokers, broker, generatedToken });
    if (LOGS_FOR_A_PERSON) process.stdout.write(summary.text);
    else log.info(summary.fields, 'The service is ready.');
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
  if (err instanceof KafkaSetupError) {
    // A known setup problem (Java, Maven, a busy port): its message says what to do; a stack would not.
    const hint = err.code === 'BROKER_PORT_IN_USE' ? ' Stop whatever uses it, or give the local broker another port with LOCAL_KAFKA_PORT.' : '';
    log.fatal({ code: err.code }, `The service failed to start: ${err.message}${hint}`);
  } else {
    log.fatal({ err }, 'The service failed to start.');
  }
  process.exit(1);
});
