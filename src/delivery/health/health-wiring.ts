// The health emitter of an API process, from the service config, the config log's destinations and the
// status board (app.ts wires it; ARCHITECTURE.md "Health events").
import { accountOf, type Owned } from '../../accounts/account.js';
import type { ServiceConfig } from '../../config/service-config.js';
import type { ConfigLog } from '../../configlog/config-log.js';
import type { KafkaClient } from '../../kafka/seam.js';
import { HealthEmitter, type HealthBoard } from './health-emitter.js';
import type { HealthDestination } from './health-transition.js';

export function healthEmitterFor(config: ServiceConfig, kafka: KafkaClient, configLog: ConfigLog, board: HealthBoard): HealthEmitter {
  const { topics } = config;
  function* destinations(): Iterable<HealthDestination> {
    for (const { data } of configLog.list('event_destination')) {
      const id = String(data.id);
      yield { id, accountId: accountOf(data as Owned), uri: `${config.publicBaseUrl}/event_destinations/${id}` };
    }
  }
  return new HealthEmitter({
    kafka,
    healthTopic: topics.health,
    auditTopic: topics.audit,
    statusTopic: topics.status,
    groupId: `${config.consumerGroup}-health`,
    board,
    destinations,
    minIntervalMs: config.healthEventIntervalMs,
    sessionTimeoutMs: config.consumerSessionTimeoutMs,
  });
}
