// /reserved_addrs: create (the service allocates the address from the operator's pool), list, get, update
// (description and metadata), delete (refused while one of the account's TCP edges lists it). A reserved
// address is what a normal account's TCP edge may list besides names under its verified reserved domains
// (src/admin/README.md "Reserved TCP addresses", SECURITY.md "Traffic ownership").
import type { FastifyInstance } from 'fastify';
import { accountOf } from '../../accounts/account.js';
import { firstFree, poolSize } from '../../accounts/tcp-address-pool.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, type BaseFields } from '../resource-routes.js';
import type { StoredTcpEdge } from '../tcp-edges/tcp-edge-view.js';
import { tcpAddressResource, type StoredTcpAddress } from './tcp-address-view.js';

export function registerTcpAddressRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const pool = ctx.config.tcpAddressPool;

  /** The first address of the pool that no reservation holds and no TCP edge lists (one listed before reservations were required). */
  const build = (_body: unknown, base: BaseFields): StoredTcpAddress => {
    const owners = store.owners();
    const listed = new Set(store.all<StoredTcpEdge>('tcp_edge').flatMap((e) => e.hostports));
    const addr = firstFree(pool, (hostport) => owners.reservedBy(hostport) !== undefined || listed.has(hostport));
    if (addr === undefined) throw new ApiError('tcp_address_pool_exhausted', { pool_size: poolSize(pool) });
    return { ...base, addr };
  };
  /** An address an edge of its account lists stays: the edge would list what the account no longer holds. */
  const cascade = (a: StoredTcpAddress) => {
    const edges = store
      .all<StoredTcpEdge>('tcp_edge')
      .filter((e) => accountOf(e) === accountOf(a) && e.hostports.includes(a.addr))
      .map((e) => e.id);
    if (edges.length > 0) throw new ApiError('tcp_address_in_use', { id: a.id, addr: a.addr, edges });
    return { writes: [], audits: [] };
  };

  registerResourceRoutes(app, ctx, tcpAddressResource(ctx), {
    create: {
      summary:
        "Reserve a TCP address for the key's account: the service allocates the next free host:port of its pool. Only the account's TCP edges may list it, " +
        "and its tcp_connection_closed.v0 traffic is the account's.",
      description: 'The new reservation, with its address.',
      errors: [409],
      build,
      links: { createTcpEdge: { operationId: 'createTcpEdge', description: "A TCP edge listing the new address: its addr (the response's addr) in hostports." } },
    },
    list: ['List reserved TCP addresses, newest first.', 'A page of reserved TCP addresses.'],
    get: ['Get a reserved TCP address.', 'The reservation.'],
    update: { summary: 'Update the description or metadata of a reserved TCP address; its address cannot change.', description: 'The updated reservation.', apply: (a) => a },
    remove: {
      summary: "Release a reserved TCP address back to the pool; refused while one of the account's TCP edges lists it.",
      errors: [409],
      cascade,
    },
  });
}
