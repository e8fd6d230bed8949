// Vitest global setup of the integration project: one real Kafka broker on free ports for the whole run.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { TestProject } from 'vitest/node';
import { startLocalBroker, type LocalBroker } from '../../src/kafka/local-broker.js';
import { createRootLogger } from '../../src/telemetry/logger.js';
import { newRunLogDir } from './test-logs.js';
import './provided-context.js';

/** The broker's own lines go to the run's log folder (test/support/test-logs.ts), not among the results. */
function setupLog(): ReturnType<typeof createRootLogger> {
  const dir = process.env.TEST_LOG_DIR ?? newRunLogDir();
  mkdirSync(dir, { recursive: true });
  return createRootLogger(pino.destination({ dest: join(dir, 'kafka-global-setup.log'), append: true, sync: true })).child({ component: 'local-broker' });
}

let broker: LocalBroker | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  try {
    broker = await startWithOneRetry();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new Error(
      `The integration suite could not start its Kafka broker${typeof code === 'string' ? ` (${code})` : ''}: ` +
        `${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  process.stderr.write(`Kafka ${broker.version} for the integration suite: ${broker.brokers}, ready in ${broker.startupMs} ms.\n`);
  project.provide('kafkaBrokers', broker.brokers);
  // For code under test that reads the environment, and for child processes the tests spawn.
  process.env.EDGE_TEST_KAFKA_BROKERS = broker.brokers;

  return async () => {
    await broker?.stop();
    broker = undefined;
  };
}

/**
 * No port and no data dir: free ports, and a temporary folder that stop() deletes. A free port can be
 * taken by another process between the probe and the broker's bind; one retry with new ports covers it.
 */
async function startWithOneRetry(): Promise<LocalBroker> {
  const log = setupLog();
  try {
    return await startLocalBroker({ log });
  } catch (err) {
    if (!/Address already in use/.test(err instanceof Error ? err.message : '')) throw err;
    process.stderr.write('The Kafka broker lost a port race; starting it again on new ports.\n');
    return startLocalBroker({ log });
  }
}
