// An event destination as the API returns it (SPEC.md 6.4). Secret fields are write-only: they are
// answered as null, whether set or not, and this object is also the `object` of its audit events.
import type { StoredDestination, StoredTarget } from '../../configlog/resources.js';
import type { AdminContext } from '../context.js';
import { CLOUD_OPTIONS, RESOURCE_ARNS, type CloudKind } from './cloud-target.js';
import { kindOfTarget } from './target-input.js';
import { isPlainObject } from './target-errors.js';

export interface DestinationView {
  readonly id: string;
  readonly uri: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly format: 'json';
  readonly target: Readonly<Record<string, unknown>>;
}

export const destinationPath = (id: string): string => `/event_destinations/${id}`;

function cloudView(kind: CloudKind, stored: unknown): Record<string, unknown> {
  const s = isPlainObject(stored) ? stored : {};
  const auth = isPlainObject(s.auth) ? s.auth : {};
  const arnField = RESOURCE_ARNS[kind].field;
  let authView: Record<string, unknown> = {};
  if (isPlainObject(auth.role)) authView = { role: { role_arn: auth.role.role_arn } };
  else if (isPlainObject(auth.creds)) authView = { creds: { cloud_access_key_id: auth.creds.cloud_access_key_id, cloud_secret_access_key: null } };
  const options = Object.fromEntries(CLOUD_OPTIONS[kind].map((k) => [k, s[k] ?? null]));
  return { auth: authView, [arnField]: s[arnField], ...options };
}

/** The target with every secret replaced by null and only known fields copied, so nothing sealed leaks. */
export function targetView(target: StoredTarget): Record<string, unknown> {
  const kind = kindOfTarget(target);
  switch (kind) {
    case 'kafka': {
      const k = target.kafka as NonNullable<StoredTarget['kafka']> & { key?: string };
      return { kafka: { topic: k.topic, brokers: k.brokers ?? null, key: k.key ?? null } };
    }
    case 'http': {
      const h = target.http as NonNullable<StoredTarget['http']> & { timeout_ms?: number };
      return { http: { url: h.url, secret: null, timeout_ms: h.timeout_ms ?? null } };
    }
    case 'file':
      return { file: { path: target.file?.path } };
    case undefined:
      return {};
    default:
      return { [kind]: cloudView(kind, target[kind]) };
  }
}

export function destinationView(ctx: AdminContext, dest: StoredDestination): DestinationView {
  return {
    id: dest.id,
    uri: ctx.uri(destinationPath(dest.id)),
    created_at: dest.created_at,
    description: dest.description,
    metadata: dest.metadata,
    format: 'json',
    target: targetView(dest.target),
  };
}
