// Reserved TCP addresses: stored shape, API view (also the object of tcp_address_*.v0 audit events) and
// schemas. The address is the service's pick from the operator's pool (src/accounts/tcp-address-pool.ts).
import type { Owned } from '../../accounts/account.js';
import { baseView, type AdminContext } from '../context.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import type { Resource } from '../resource-routes.js';

export interface StoredTcpAddress extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  /** A canonical hostport of the pool, e.g. "1.tcp.example.com:20000". */
  readonly addr: string;
}

export function tcpAddressView(ctx: AdminContext, a: StoredTcpAddress): Record<string, unknown> {
  return { ...baseView(ctx, '/reserved_addrs', a), addr: a.addr };
}

/** The reserved address's fields (resource-fields.ts): the service picks `addr`, so no request sends it. */
export const TCP_ADDRESS_FIELDS = {
  ...baseFields('tcp_address'),
  addr: {
    response: {
      type: 'string',
      examples: ['1.tcp.example.com:20000'],
      description:
        "host:port the service allocated from its pool, the account's alone while reserved: only its TCP edges may list it, and its tcp_connection_closed.v0 traffic is the account's. Fixed for the reservation's life.",
    },
  },
} satisfies Fields;

export const TCP_ADDRESS_SCHEMAS = resourceSchemas(TCP_ADDRESS_FIELDS);

export function tcpAddressResource(ctx: AdminContext): Resource<StoredTcpAddress> {
  return {
    path: '/reserved_addrs',
    kind: 'tcp_address',
    name: 'reserved TCP address',
    plural: 'reserved TCP addresses',
    listKey: 'reserved_addrs',
    tags: ['Reserved TCP addresses'],
    schemas: TCP_ADDRESS_SCHEMAS,
    view: (a) => tcpAddressView(ctx, a),
    audit: 'tcp_address',
  };
}
