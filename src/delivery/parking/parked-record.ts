// The record format of retry topics: one parked delivery per record, the envelope as the value and
// headers saying where it came from, when and why it was parked, and how often.
import type { HeaderValue, IncomingMessage, OutgoingMessage } from '../../kafka/seam.js';
import type { DeliveryItem, SourceRef } from '../contract.js';
import type { DeliveryError } from '../errors.js';

export const PARKING_HEADERS = {
  destinationId: 'x-destination-id',
  /** When the delivery was first parked (ms since the epoch); kept when it is parked again. */
  parkedAt: 'x-parked-at',
  /** How many times it has been parked. */
  parkCount: 'x-park-count',
  errorCode: 'x-error-code',
  errorMessage: 'x-error-message',
  /** The record the delivery was made from, as in dead letters. */
  sourceTopic: 'x-source-topic',
  sourcePartition: 'x-source-partition',
  sourceOffset: 'x-source-offset',
  /** The subscription the event was matched for (DeliveryItem.subscriptionId); absent for a test event. */
  subscriptionId: 'x-subscription-id',
} as const;

const MAX_ERROR_MESSAGE_LENGTH = 1000;

/** A destination's retry topic. Destination ids ("ed_" and Crockford base32) are legal in topic names. */
export function retryTopic(prefix: string, destinationId: string): string {
  return `${prefix}${destinationId}`;
}

/** What a re-driven item remembers of its parking, so parking it again keeps its history. */
export interface ParkedMeta {
  readonly parkedAt: number;
  readonly parkCount: number;
  /** The consumed record the delivery was first made from. */
  readonly origin: SourceRef | undefined;
}

// Items decoded from a retry topic; a WeakMap so a settled item is collected with its metadata.
const parkedMeta = new WeakMap<DeliveryItem, ParkedMeta>();

export function metaOf(item: DeliveryItem): ParkedMeta | undefined {
  return parkedMeta.get(item);
}

export function toParkedMessage(item: DeliveryItem, destinationId: string, error: DeliveryError, now: number): OutgoingMessage {
  const meta = parkedMeta.get(item);
  const origin = meta === undefined ? item.source : meta.origin;
  const headers: Record<string, string> = {
    [PARKING_HEADERS.destinationId]: destinationId,
    [PARKING_HEADERS.parkedAt]: String(meta?.parkedAt ?? now),
    [PARKING_HEADERS.parkCount]: String((meta?.parkCount ?? 0) + 1),
    [PARKING_HEADERS.errorCode]: error.code,
    [PARKING_HEADERS.errorMessage]: error.message.slice(0, MAX_ERROR_MESSAGE_LENGTH),
  };
  if (origin !== undefined) {
    headers[PARKING_HEADERS.sourceTopic] = origin.topic;
    headers[PARKING_HEADERS.sourcePartition] = String(origin.partition);
    headers[PARKING_HEADERS.sourceOffset] = String(origin.offset);
  }
  if (item.subscriptionId !== undefined) headers[PARKING_HEADERS.subscriptionId] = item.subscriptionId;
  return { key: item.eventId, value: item.payload, headers };
}

function header(headers: Readonly<Record<string, HeaderValue>> | undefined, name: string): string | undefined {
  const v = headers?.[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v[0] : v)?.toString('utf8');
}

/**
 * A parked record as a delivery item again. Its `source` is its own place in the retry topic, so its
 * settlement commits the retry topic; where it first came from stays in its metadata.
 */
export function fromParkedMessage(topic: string, partition: number, message: IncomingMessage): DeliveryItem | undefined {
  if (message.value === null) return undefined;
  const h = message.headers;
  const sourceTopic = header(h, PARKING_HEADERS.sourceTopic);
  const origin =
    sourceTopic === undefined
      ? undefined
      : { topic: sourceTopic, partition: Number(header(h, PARKING_HEADERS.sourcePartition)), offset: Number(header(h, PARKING_HEADERS.sourceOffset)) };
  const parkedAt = Number(header(h, PARKING_HEADERS.parkedAt));
  const subscriptionId = header(h, PARKING_HEADERS.subscriptionId);
  const item: DeliveryItem = {
    eventId: message.key?.toString('utf8') ?? '',
    payload: message.value,
    source: { topic, partition, offset: Number(message.offset) },
    ...(subscriptionId !== undefined && { subscriptionId }),
  };
  parkedMeta.set(item, {
    parkedAt: Number.isFinite(parkedAt) ? parkedAt : Number(message.timestamp),
    parkCount: Number(header(h, PARKING_HEADERS.parkCount) ?? '1') || 1,
    origin,
  });
  return item;
}
