// Read-committed reads over @platformatic/kafka by Kafka's own rule for aborted transactions. The client's
// filter keeps one aborted range per producer id and hands over a range whose abort marker is not in the
// same fetch: the records of a producer's earlier aborted transactions (the config writer keeps its
// producer id across the producers it replaces after failures), and of an aborted transaction larger than
// a fetch, reached the reader. This consumer filters each fetch response the way the Java client does
// before the client sees it, and leaves the client's filter nothing to do. A listener (the consumer
// adapter) then sees each filtered answer before the client's message stream does. The answers of the
// Fetch versions fetch-response.ts reads are parsed by it.
import { promisify } from 'node:util';
import { Consumer, IS_CONTROL, IS_TRANSACTIONAL, kGetApi, type API, type Callback, type Connection, type RecordsBatch } from '@platformatic/kafka';
import { fastFetchApi } from './fetch-response.js';
import { substituteApi } from './substitute-api.js';

/** One partition of a fetch response, as every Fetch version the client speaks parses it. */
export interface FetchedPartition {
  readonly partitionIndex?: number;
  abortedTransactions: { readonly producerId: bigint; readonly firstOffset: bigint }[] | null;
  records?: RecordsBatch[] | null;
}

/** A topic of a fetch response: named up to Fetch v12, by its id from v13. */
export interface FetchedTopic {
  readonly topic?: string;
  readonly topicId?: string;
  readonly partitions: readonly FetchedPartition[];
}

export interface FetchedResponse {
  readonly responses: readonly FetchedTopic[];
}

/** Sees a fetch answer, filtered, before the client does; `connection` is the one it came on. */
export type FetchListener = (connection: Connection, response: FetchedResponse) => void;

/** A control record's key is a version (int16) then a type (int16): 0 marks an abort, 1 a commit. */
const ABORT = 0;

const isAbortMarker = (batch: RecordsBatch): boolean => (batch.attributes & IS_CONTROL) !== 0 && batch.records[0]?.key?.readInt16BE(2) === ABORT;

/**
 * Empties the batches of aborted transactions among one partition's fetched batches (in offset order): a
 * producer is aborting from the first offset of each aborted transaction the broker listed for the fetch
 * until its abort marker, and its transactional batches in between are dropped. The emptied batches stay,
 * so the client still moves its fetch offset past them.
 */
export function dropAbortedTransactions(partition: FetchedPartition): void {
  const aborted = [...(partition.abortedTransactions ?? [])].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  partition.abortedTransactions = [];
  const aborting = new Set<bigint>();
  let next = 0;
  for (const batch of partition.records ?? []) {
    const lastOffset = batch.firstOffset + BigInt(batch.lastOffsetDelta);
    for (let head = aborted[next]; head !== undefined && head.firstOffset <= lastOffset; head = aborted[++next]) aborting.add(head.producerId);
    if (isAbortMarker(batch)) aborting.delete(batch.producerId);
    else if ((batch.attributes & IS_TRANSACTIONAL) !== 0 && aborting.has(batch.producerId)) batch.records = [];
  }
}

type AnyApi = API<unknown[], unknown>;

/** The Fetch call with its answer filtered and shown to `listener`; the client reads `version` off it. */
function filteringFetch(fetch: AnyApi, listener: () => FetchListener | undefined): AnyApi {
  const filtered = (connection: Connection, ...args: unknown[]): void => {
    const done = args.pop() as Callback<unknown>;
    fetch(connection, ...args, (error: Error | null, response?: unknown) => {
      if (error === null && response !== undefined) {
        for (const topic of (response as FetchedResponse).responses) for (const p of topic.partitions) dropAbortedTransactions(p);
        listener()?.(connection, response as FetchedResponse);
      }
      done(error, response);
    });
  };
  return Object.assign(filtered, { async: promisify(filtered), key: fetch.key, version: fetch.version }) as unknown as AnyApi;
}

/** A Consumer whose reads hand over no record of an aborted transaction. */
export class ReadCommittedConsumer<Key, Value, HeaderKey, HeaderValue> extends Consumer<Key, Value, HeaderKey, HeaderValue> {
  private readonly fetches = new WeakMap<AnyApi, AnyApi>();
  /** Sees every filtered fetch answer before the client's message stream. */
  onFetched: FetchListener | undefined;

  override [kGetApi]<RequestArguments extends unknown[], ResponseType>(name: string, callback: Callback<API<RequestArguments, ResponseType>>): void {
    if (name !== 'Fetch') super[kGetApi](name, callback);
    else substituteApi((found) => super[kGetApi](name, found), this.fetches, (api) => filteringFetch(fastFetchApi(api), () => this.onFetched), callback);
  }
}
