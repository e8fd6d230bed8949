// WriterDeps for tests that build writers or run checks without the whole service: the default service
// topics' egress rules, and no Kafka unless the test brings a client.
import { loadServiceConfig } from '../../src/config/service-config.js';
import type { WriterDeps } from '../../src/delivery/destination-kind.js';
import { DEFAULT_EGRESS_SETTINGS, egressRules, type EgressRules } from '../../src/delivery/egress-rules.js';

/** What the suite opens to its own receivers, which listen on loopback over plain http, the Azure contract receiver among them (serviceEnv sets the same). */
export const TEST_EGRESS_ENV = { EGRESS_ALLOW_HTTP: 'true', EGRESS_ALLOW_CIDRS: '127.0.0.0/8,::1/128', AZURE_LOGS_INGESTION_DOMAINS: 'ingest.monitor.azure.com,127.0.0.1' } as const;

/** The rules of a service with the default topic names (edge.config, edge.audit, edge.retry.…) and the default egress settings. */
export const DEFAULT_EGRESS: EgressRules = egressRules(loadServiceConfig({}).topics);

/** The default topics' rules with the suite's loopback receivers opened (TEST_EGRESS_ENV). */
export const TEST_EGRESS: EgressRules = egressRules(loadServiceConfig({}).topics, { ...DEFAULT_EGRESS_SETTINGS, ...loadServiceConfig(TEST_EGRESS_ENV).egress });

export function writerDeps(parts: Partial<WriterDeps> = {}): WriterDeps {
  return {
    kafkaClient: () => {
      throw new Error('no kafka in this test');
    },
    fileRoot: '.',
    egress: TEST_EGRESS,
    ...parts,
  };
}
