// The Kafka clients of kafka destinations (src/delivery/destinations/kafka/): the service's own cluster,
// or a customer's broker list, whose every connection goes through the egress guard (SECURITY.md
// "Egress"). A client of the seam is a factory of admins, producers and consumers holding no connection
// of its own (each writer's producer and each check's admin open and close theirs), so nothing is kept
// per broker list: a cache by list grew by one client for every list a create-time check was ever given.
import type { AddressGuard } from '../net/guarded-lookup.js';
import { createClient } from './client.js';
import type { KafkaClient, KafkaClientName } from './seam.js';

export interface DestinationClientOptions {
  readonly name: KafkaClientName;
  /** The service's own cluster: a destination that names no brokers writes there, unguarded. */
  readonly ownBrokers: readonly string[];
  /** Judges every broker a customer's cluster leads to. */
  readonly connectGuard: AddressGuard;
  /** Retries of one request: few, since the destination runner owns retry and backoff. */
  readonly retries: number;
}

export class DestinationClients {
  private readonly own: KafkaClient;

  constructor(private readonly opts: DestinationClientOptions) {
    this.own = this.make(opts.ownBrokers, false);
  }

  /** The client for `brokers`, or for the service's own cluster when there are none. */
  for(brokers?: readonly string[]): KafkaClient {
    return brokers === undefined || brokers.length === 0 ? this.own : this.make(brokers, true);
  }

  private make(brokers: readonly string[], guarded: boolean): KafkaClient {
    const { name, retries, connectGuard } = this.opts;
    return createClient({ name, clientId: 'edge-events-destination', brokers, retries, ...(guarded && { connectGuard }) });
  }
}
