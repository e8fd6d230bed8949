// Helpers for integration tests against the suite's real broker: its address, and the service's client on
// it; the Kafka tools themselves are in kafka-tools.ts.
import { inject } from 'vitest';
import { createClient } from '../../src/kafka/client.js';
import type { KafkaClient } from '../../src/kafka/seam.js';
import './provided-context.js';

export { withAdmin } from '../../src/kafka/seam.js';
export * from './kafka-tools.js';

/** The broker address the global setup provided ("127.0.0.1:port"). */
export function testBrokers(): string {
  return inject('kafkaBrokers');
}

/** The service's client seam (src/kafka/seam.ts) on the suite's broker: the tests' tool and the service's parts' client. */
export function testClient(clientId = 'integration-test', brokers: string | readonly string[] = testBrokers()): KafkaClient {
  return createClient({ clientId, brokers });
}
