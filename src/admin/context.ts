// What every admin resource module receives from the composition root: the store, uri building, the
// secret box and the service config. Resource modules export `register<Thing>Routes(app, ctx)`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceConfig } from '../config/service-config.js';
import type { StoredTarget } from '../configlog/resources.js';
import type { ConfigProblem } from '../delivery/destination-config.js';
import type { EgressRules } from '../delivery/egress-rules.js';
import type { DestinationStatusSummary } from '../delivery/status/status-aggregate.js';
import type { TestEventSender } from '../delivery/test-event.js';
import type { Principal } from '../events/envelope.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { AdminStore } from './store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key that sent the request; set by the auth hook on every authenticated route. */
    principal: Principal | null;
  }
}

export interface AdminContext {
  readonly store: AdminStore;
  readonly config: ServiceConfig;
  readonly secrets: SecretBox;
  /** The absolute uri of a path under PUBLIC_BASE_URL, e.g. uri('/ip_policies/ipp_1'). */
  uri(path: string): string;
  /** Delivers a test envelope through a destination's writer (POST /event_destinations/{id}/test_event). */
  readonly testEvent?: TestEventSender;
  readonly destinations: DestinationSupport;
}

/** What the event destination routes need from the delivery side, wired by the composition root. */
export interface DestinationSupport {
  /** What a target may not point at (src/delivery/egress-rules.ts). */
  readonly egress: EgressRules;
  /** A target's create-time check (src/delivery/verify-target.ts): its first problem, or undefined. */
  verify(target: StoredTarget): Promise<ConfigProblem | undefined>;
  /** The destination's status over all workers (src/delivery/status/). */
  status(id: string): DestinationStatusSummary;
}

/** A resource module: adds its routes to the admin API's Fastify scope. */
export type AdminRouteModule = (app: FastifyInstance, ctx: AdminContext) => void;

/** The principal of an authenticated request (the auth hook guarantees one on every admin route). */
export function principalOf(req: FastifyRequest): Principal {
  if (req.principal === null) throw new Error('an admin route ran without an authenticated principal');
  return req.principal;
}

/** A Ref: the id and absolute uri of another resource. */
export function ref(ctx: AdminContext, collection: string, id: string): { id: string; uri: string } {
  return { id, uri: ctx.uri(`${collection}/${id}`) };
}

/** The fields a resource answers with first, in the order of RESOURCE_FIELDS (schemas.ts). */
export function baseView(
  ctx: AdminContext,
  collection: string,
  item: { readonly id: string; readonly created_at: string; readonly description: string; readonly metadata: string },
): { id: string; uri: string; created_at: string; description: string; metadata: string } {
  return { id: item.id, uri: ctx.uri(`${collection}/${item.id}`), created_at: item.created_at, description: item.description, metadata: item.metadata };
}
