// The audit event of the IP restriction module: its object is the module record as the API returns it
// (enabled, ip_policies) plus `edge`, the Ref of the TCP edge it belongs to, since the module has no id,
// and the edge's account_id, which routes the event to that account's subscriptions.
import { accountOf } from '../../accounts/account.js';
import type { AdminContext } from '../context.js';
import { ref } from '../context.js';
import type { AuditRecord } from '../store.js';
import { ipRestrictionView, type StoredIpRestriction, type StoredTcpEdge } from '../tcp-edges/tcp-edge-view.js';

export function ipRestrictionAudit(
  ctx: AdminContext,
  action: 'created' | 'updated' | 'deleted',
  edge: StoredTcpEdge,
  module: StoredIpRestriction,
): AuditRecord {
  return {
    kind: 'ip_restriction',
    action,
    key: edge.id,
    object: { ...ipRestrictionView(ctx, module), edge: ref(ctx, '/edges/tcp', edge.id), account_id: accountOf(edge) },
  };
}
