// One record of a traffic type from a seed, the same for the same seed: for tests and benchmarks that
// want a few realistic records by number rather than a stream. It is the traffic generator's record.
import type { TrafficEventType } from '../events/catalog.js';
import type { TrafficRecordInput } from '../records/record-encoder.js';
import { TrafficGenerator, buildUniverse, type TrafficOptions, type TrafficUniverse } from './generator.js';

let defaultUniverse: TrafficUniverse | undefined;

/** The first record of `eventType` a generator seeded with `seed` draws, in the default universe of hosts and clients. */
export function seededRecord(eventType: TrafficEventType, seed: number, opts: Pick<TrafficOptions, 'epochMs'> = {}): TrafficRecordInput {
  defaultUniverse ??= buildUniverse();
  const httpShare = eventType === 'http_request_complete.v0' ? 1 : 0;
  return new TrafficGenerator({ ...opts, seed, httpShare }, defaultUniverse).next().record;
}
