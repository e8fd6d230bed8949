// The seam's connectGuard (seam.ts) for kafkajs: its sockets, to a bootstrap broker or to one learned from
// the cluster's metadata, come from the client's socket factory; this one judges the broker's host first
// and connects to the address the guard answered (SECURITY.md "Egress").
import { Socket } from 'node:net';
import type { ISocketFactory } from 'kafkajs';
import type { AddressGuard } from '../../net/guarded-lookup.js';

/** A socket factory for plain connections (the service's kafka destinations use no TLS) that go through `guard`. */
export function guardedSocketFactory(guard: AddressGuard): ISocketFactory {
  return ({ host, port, onConnect }) => {
    const socket = new Socket();
    // kafkajs listens for 'error' on the socket it is handed: a refusal arrives there, as a failed connect would.
    guard(host).then(
      (reached) => {
        if (!socket.destroyed) socket.connect({ host: reached.address, port }, onConnect);
      },
      (err: Error) => socket.destroy(err),
    );
    return socket;
  };
}
