// The service's Prometheus metrics, all in one registry so /metrics shows every component.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const recordsConsumed = new Counter({
  name: 'edge_records_consumed_total',
  help: 'Raw records consumed, per topic.',
  labelNames: ['topic'] as const,
  registers: [registry],
});

export const decodeFailures = new Counter({
  name: 'edge_decode_failures_total',
  help: 'Records that failed to decode or validate and went to the dead-letter topic, per error code.',
  labelNames: ['topic', 'code'] as const,
  registers: [registry],
});

export const celEvaluationErrors = new Counter({
  name: 'edge_cel_evaluation_errors_total',
  help: 'Filter evaluations that produced a CEL error value (counted as no match).',
  registers: [registry],
});

export const subscriptionMatches = new Counter({
  name: 'edge_subscription_matches_total',
  help: 'Events matched, per subscription.',
  labelNames: ['subscription'] as const,
  registers: [registry],
});

export const unownedRecords = new Counter({
  name: 'edge_unowned_records_total',
  help: 'Traffic records that belong to no account (no reserved domain or TCP edge hostport of theirs): only the operator account\'s subscriptions may match them. Per event type.',
  labelNames: ['event_type'] as const,
  registers: [registry],
});

export const deliveries = new Counter({
  name: 'edge_deliveries_total',
  help: 'Event deliveries per destination and outcome (ok, failed, retried, dead_lettered, parked).',
  labelNames: ['destination', 'outcome'] as const,
  registers: [registry],
});

export const batchLatency = new Histogram({
  name: 'edge_delivery_batch_seconds',
  help: 'Time to deliver one batch to a destination, retries included.',
  labelNames: ['kind'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const replaysRunning = new Gauge({
  name: 'edge_replays_running',
  help: 'Replays this worker reads now (ARCHITECTURE.md "Replay").',
  registers: [registry],
});

export const replayRecordsScanned = new Counter({
  name: 'edge_replay_records_scanned_total',
  help: 'Records of a replay\'s range this worker read, per replay.',
  labelNames: ['replay'] as const,
  registers: [registry],
});

export const replayReadRate = new Gauge({
  name: 'edge_replay_read_rate',
  help: 'Records a second this worker\'s replays may read now, all together (REPLAY_RECORDS_PER_SECOND at most; lower while live delivery is late); 0 while none runs.',
  registers: [registry],
});

export const replayLag = new Gauge({
  name: 'edge_replay_lag_records',
  help: 'Records of a replay\'s range not read yet (behind its end), per replay this worker reads, from the replay\'s checkpoints.',
  labelNames: ['replay'] as const,
  registers: [registry],
});

export const consumerLag = new Gauge({
  name: 'edge_consumer_lag',
  help: 'Records between the committed offset and the high watermark, per topic and partition.',
  labelNames: ['topic', 'partition'] as const,
  registers: [registry],
});

/**
 * In-flight counts move with every record and delivery: they are kept as plain numbers on that path
 * (several gauge updates a record cost measurable time) and their gauges read them when scraped.
 */
export const inFlight = { records: 0, deliveries: 0, deliveryBytes: 0 };

export const inFlightRecords = new Gauge({
  name: 'edge_in_flight_records',
  help: 'Records consumed whose deliveries are not all acknowledged yet.',
  registers: [registry],
  collect() {
    this.set(inFlight.records);
  },
});

export const inFlightDeliveries = new Gauge({
  name: 'edge_in_flight_deliveries',
  help: 'Deliveries (one event at one destination) queued or being written, across all destinations.',
  registers: [registry],
  collect() {
    this.set(inFlight.deliveries);
  },
});

export const inFlightDeliveryBytes = new Gauge({
  name: 'edge_in_flight_delivery_bytes',
  help: 'Payload bytes of the in-flight deliveries; the ingest consumer pauses when the budget is spent.',
  registers: [registry],
  collect() {
    this.set(inFlight.deliveryBytes);
  },
});

export const parkedDeliveries = new Counter({
  name: 'edge_parked_deliveries_total',
  help: 'Deliveries parked in a destination retry topic after the destination spent its retry budget.',
  labelNames: ['destination'] as const,
  registers: [registry],
});

export const redrivenDeliveries = new Counter({
  name: 'edge_redriven_deliveries_total',
  help: 'Parked deliveries re-driven from a retry topic, per outcome (acked, dead_lettered, parked again).',
  labelNames: ['destination', 'outcome'] as const,
  registers: [registry],
});

export const oldestUnsettledAge = new Gauge({
  name: 'edge_oldest_unsettled_record_age_seconds',
  help: "Seconds since the batch began that read the partition's oldest record whose deliveries are not all settled, per topic and partition, as this worker sees it (0 when none waits). The partition commits nothing past that record.",
  labelNames: ['topic', 'partition'] as const,
  registers: [registry],
});

export const oldestParkedAge = new Gauge({
  name: 'edge_oldest_parked_delivery_age_seconds',
  help: 'Age of the oldest parked delivery not yet re-driven, per destination, as this worker sees it (0 when none).',
  labelNames: ['destination'] as const,
  registers: [registry],
});
