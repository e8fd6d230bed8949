// WriterDeps for tests that build writers or run checks without the whole service: the default service
// topics' egress rules, and no Kafka unless the test brings a client.
import { loadServiceConfig } from '../../src/config/service-config.js';
import type { WriterDeps } from '../../src/delivery/destination-kind.js';
import { egressRules, type EgressRules } from '../../src/delivery/egress-rules.js';

/** The rules of a service with the default topic names (edge.config, edge.audit, edge.retry.…). */
export const DEFAULT_EGRESS: EgressRules = egressRules(loadServiceConfig({}).topics);

export function writerDeps(parts: Partial<WriterDeps> = {}): WriterDeps {
  return {
    kafkaClient: () => {
      throw new Error('no kafka in this test');
    },
    fileRoot: '.',
    egress: DEFAULT_EGRESS,
    ...parts,
  };
}
