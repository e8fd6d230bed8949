// Checks that the worker and the peer delivered the same events: the same (record, subscription) pairs, and
// for each the same event type, timestamp, principal and object (as JSON values: key order aside).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { eventIdOf } from '../../src/ids.js';

/** An envelope's content without its id, with object keys sorted, hashed: two events agree when these do. */
function contentDigest(e: { event_type: unknown; event_timestamp: unknown; principal: unknown; object: unknown }): string {
  const sorted = (v: unknown): unknown =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : Array.isArray(v) ? v.map(sorted) : v;
  return createHash('sha1').update(JSON.stringify(sorted([e.event_type, e.event_timestamp, e.principal, e.object]))).digest('base64');
}

/** Every record value of `topics` from the start to the end, one JSON document a line, through Debian's kcat. */
async function readValues(brokers: string, topics: readonly string[], onValue: (text: string) => void): Promise<void> {
  for (const topic of topics) {
    const kcat = spawn('kcat', ['-C', '-b', brokers, '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%s\n'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    kcat.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => kcat.once('exit', resolve));
    for await (const line of createInterface({ input: kcat.stdout })) if (line !== '') onValue(line);
    const code = await exited;
    if (code !== 0) throw new Error(`kcat reading ${topic} exited with ${code}: ${stderr}`);
  }
}

export interface EventComparison {
  readonly service: number;
  readonly peer: number;
  /** Pairs both delivered with the same content. */
  readonly same: number;
  readonly onlyService: number;
  readonly onlyPeer: number;
  readonly differing: number;
  /** Events one side delivered more than once (the drains have no restart, so none are expected). */
  readonly duplicates: number;
  /** The first few differences, for the error message. */
  readonly examples: readonly string[];
}

/**
 * Reads the worker's envelopes (keyed by event_id) and the peer's events, whose event id follows from the
 * record (topic, partition, offset, Kafka timestamp), the subscription and its destination by the documented
 * formula (ARCHITECTURE.md "Event ids"), and compares them.
 */
export async function compareEvents(brokers: string, serviceTopics: readonly string[], peerTopics: readonly string[], destinationId: string): Promise<EventComparison> {
  const byId = new Map<string, string>();
  let service = 0;
  let duplicates = 0;
  const examples: string[] = [];
  await readValues(brokers, serviceTopics, (text) => {
    const e = JSON.parse(text) as { event_id: string; event_type: unknown; event_timestamp: unknown; principal: unknown; object: unknown };
    service++;
    if (byId.has(e.event_id)) duplicates++;
    byId.set(e.event_id, contentDigest(e));
  });
  let peer = 0;
  let same = 0;
  let differing = 0;
  let onlyPeer = 0;
  const seen = new Set<string>();
  await readValues(brokers, peerTopics, (text) => {
    const e = JSON.parse(text) as { subscription_id: string; topic: string; partition: number; offset: number; event_type: unknown; event_timestamp: string; principal: unknown; object: unknown };
    peer++;
    const id = eventIdOf(Date.parse(e.event_timestamp), e.topic, e.partition, e.offset, e.subscription_id, destinationId);
    if (seen.has(id)) {
      duplicates++;
      return;
    }
    seen.add(id);
    const digest = byId.get(id);
    if (digest === undefined) {
      onlyPeer++;
      if (examples.length < 5) examples.push(`only the peer: ${text.slice(0, 400)}`);
    } else if (digest !== contentDigest(e)) {
      differing++;
      if (examples.length < 5) examples.push(`differs (${id}): peer ${text.slice(0, 400)}`);
    } else same++;
    byId.delete(id);
  });
  for (const id of byId.keys()) {
    if (examples.length >= 5) break;
    examples.push(`only the service: ${id}`);
  }
  return { service, peer, same, onlyService: byId.size, onlyPeer, differing, duplicates, examples };
}
