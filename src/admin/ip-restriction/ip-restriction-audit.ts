// The audit event of the IP restriction module: its object is the module record as the API returns it
// (enabled, ip_policies) plus `edge`, the Ref of the TCP edge it belongs to, since the module has no id.
import type { AdminContext } from '../context.js';
import { ref } from '../context.js';
import type { AuditRecord } from '../store.js';
import { ipRestrictionView, type StoredIpRestriction } from '../tcp-edges/tcp-edge-view.js';

export function ipRestrictionAudit(
  ctx: AdminContext,
  action: 'created' | 'updated' | 'deleted',
  edgeId: string,
  module: StoredIpRestriction,
): AuditRecord {
  return {
    kind: 'ip_restriction',
    action,
    key: edgeId,
    object: { ...ipRestrictionView(ctx, module), edge: ref(ctx, '/edges/tcp', edgeId) },
  };
}
