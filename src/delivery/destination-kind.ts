// What a destination kind provides to the registry: config parsing and a writer factory.
import type { Kafka } from 'kafkajs';
import type { Logger } from '../telemetry/logger.js';
import type { DestinationWriter } from './contract.js';
import type { ParseResult } from './destination-config.js';
import type { CloudDeps } from './destinations/cloud/client-config.js';

/** Everything writers need from the composition root; nothing news up its own dependencies. */
export interface WriterDeps {
  /** A kafkajs client for `brokers`, or for the service's own cluster when `brokers` is undefined. */
  readonly kafkaClient: (brokers?: readonly string[]) => Kafka;
  /** The directory file destinations' paths are relative to. */
  readonly fileRoot: string;
  readonly file?: { readonly maxFileBytes?: number; readonly maxFiles?: number };
  readonly http?: { readonly timeoutMs?: number; readonly maxBatchRecords?: number; readonly maxBatchBytes?: number };
  /** The cloud kinds' endpoints, base identity for role auth, timeouts and log stream name. */
  readonly cloud?: CloudDeps;
  readonly logger?: Logger;
}

export interface DestinationKind<C> {
  /** The target key naming the kind, e.g. "http" in {"http": {"url": …}}. */
  readonly kind: string;
  /** Validates the kind's config object; `prefix` names it in problems, e.g. "target.http". */
  parse(raw: unknown, prefix: string): ParseResult<C>;
  create(config: C, deps: WriterDeps): DestinationWriter;
}
