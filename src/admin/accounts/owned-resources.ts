// What an account owns, and the writes and audit events that delete it all. Deleting an account deletes
// every resource of it (src/admin/README.md "Accounts"): a new kind of resource is added here, and a unit
// test fails until every kind the config log holds but accounts is listed.
import { accountOf } from '../../accounts/account.js';
import type { ConfigWrite } from '../../configlog/config-log.js';
import { apiKeyResource } from '../api-keys/api-key-routes.js';
import type { AdminContext } from '../context.js';
import { destinationResource } from '../event-destinations/destination-routes.js';
import { subscriptionResource } from '../event-subscriptions/subscription-routes.js';
import { ipPolicyRuleResource } from '../ip-policies/ip-policy-rule-routes.js';
import { ipPolicyResource } from '../ip-policies/ip-policy-view.js';
import { ipRestrictionAudit } from '../ip-restriction/ip-restriction-audit.js';
import { replayResource } from '../replays/replay-view.js';
import { reservedDomainResource } from '../reserved-domains/reserved-domain-view.js';
import { resourceStore, type Item, type Resource } from '../resource-routes.js';
import type { AuditRecord } from '../store.js';
import { tcpAddressResource } from '../tcp-addresses/tcp-address-view.js';
import { tcpEdgeResource } from '../tcp-edges/tcp-edge-routes.js';
import type { StoredTcpEdge } from '../tcp-edges/tcp-edge-view.js';

/** One owned resource's delete: its tombstone and its audit events. */
export interface Removal {
  readonly write: ConfigWrite;
  readonly audits: readonly AuditRecord[];
}

interface Owned {
  readonly resource: Resource<Item>;
  /** Audit events beyond the resource's own (a TCP edge's IP restriction module). */
  extra?(item: Item): AuditRecord[];
}

/**
 * The kinds an account owns, in the order its deletion removes them: its keys first, so it stops acting at
 * once, then its subscriptions, so nothing more is routed to it, then what they used.
 */
export function ownedResources(ctx: AdminContext): readonly Owned[] {
  const edgeModule = (e: Item): AuditRecord[] => {
    const edge = e as StoredTcpEdge;
    return edge.ip_restriction === null ? [] : [ipRestrictionAudit(ctx, 'deleted', edge, edge.ip_restriction)];
  };
  return [
    { resource: apiKeyResource(ctx) },
    { resource: subscriptionResource(ctx) },
    { resource: replayResource(ctx) as unknown as Resource<Item> },
    { resource: destinationResource(ctx) },
    { resource: tcpEdgeResource(ctx), extra: edgeModule },
    { resource: ipPolicyRuleResource(ctx) },
    { resource: ipPolicyResource(ctx) },
    { resource: reservedDomainResource(ctx) },
    { resource: tcpAddressResource(ctx) },
  ];
}

/** Every resource of `accountId`, as deletes in the order of ownedResources(). */
export function removalsOf(ctx: AdminContext, accountId: string): Removal[] {
  return ownedResources(ctx).flatMap(({ resource, extra }) => {
    const { audits } = resourceStore(ctx, resource);
    return ctx.store
      .all<Item>(resource.kind)
      .filter((item) => accountOf(item) === accountId)
      .map((item) => ({ write: { kind: resource.kind, id: item.id, data: null }, audits: [...(extra?.(item) ?? []), ...audits('deleted', item)] }));
  });
}

/** A transaction's share of the removals: well under the broker's default 1 MiB record batch on either topic. */
const CHUNK_BYTES = 256 * 1024;
const CHUNK_RECORDS = 200;

/** The removals in groups of a size one config-log transaction takes, in order. */
export function inChunks(removals: readonly Removal[]): Removal[][] {
  const chunks: Removal[][] = [];
  let chunk: Removal[] = [];
  let bytes = 0;
  for (const r of removals) {
    const size = r.audits.reduce((n, a) => n + JSON.stringify(a.object).length, 64);
    if (chunk.length > 0 && (bytes + size > CHUNK_BYTES || chunk.length >= CHUNK_RECORDS)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(r);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
