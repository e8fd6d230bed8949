// The seam's connectGuard (seam.ts) for @platformatic/kafka: every connection of a client, to a bootstrap
// broker or to one learned from the cluster's metadata, is taken from one of its connection pools; a pool
// of a guarded client has the guard in its context, and its get() judges the broker's host first, then
// connects to the address the guard answered (SECURITY.md "Egress").
import { instancesChannel, type Broker, type Connection, type ConnectionPool } from '@platformatic/kafka';
import type { AddressGuard } from '../../net/guarded-lookup.js';

const GUARD = Symbol('edge-events.connectGuard');

interface GuardedContext {
  readonly [GUARD]: AddressGuard;
}

type Get = (broker: Broker, callback: (error: Error | null, connection?: Connection) => void) => void;

let watching = false;

/** The `context` option of a client whose connections go through `guard`. */
export function guardedContext(guard: AddressGuard): GuardedContext {
  // The client announces each pool it makes (the consumer's streams make their own) on this channel.
  if (!watching) {
    watching = true;
    instancesChannel.subscribe((message) => {
      const { type, instance } = message as { type?: string; instance?: ConnectionPool };
      const guardOf = (instance?.context as Partial<GuardedContext> | undefined)?.[GUARD];
      if (type === 'connection-pool' && instance !== undefined && guardOf !== undefined) guardPool(instance, guardOf);
    });
  }
  return { [GUARD]: guard };
}

function guardPool(pool: ConnectionPool, guard: AddressGuard): void {
  const get = pool.get.bind(pool) as Get;
  // The address each broker was judged to be at: an open connection to it was judged when it opened, so
  // a request on it (every send asks the pool) does not resolve the name again.
  const judged = new Map<string, string>();
  const guarded: Get = (broker, callback) => {
    // A broker missing from the metadata gets the client's own (retriable) error.
    if (broker?.host == null) return get(broker, callback);
    const key = `${broker.host}:${broker.port}`;
    const known = judged.get(key);
    if (known !== undefined && pool.getEstablishedConnection({ ...broker, host: known })?.isConnected() === true) return get({ ...broker, host: known }, callback);
    guard(broker.host).then(
      (reached) => {
        judged.set(key, reached.address);
        get({ ...broker, host: reached.address }, callback);
      },
      (err: Error) => callback(err),
    );
  };
  pool.get = ((broker: Broker, callback?: (error: Error | null, connection?: Connection) => void) => {
    if (callback !== undefined) return guarded(broker, callback);
    return new Promise<Connection>((resolve, reject) => guarded(broker, (err, c) => (err === null ? resolve(c as Connection) : reject(err))));
  }) as ConnectionPool['get'];
}
