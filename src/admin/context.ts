// What every admin resource module receives from the composition root: the store, uri building, the
// secret box and the service config. Resource modules export `register<Thing>Routes(app, ctx)`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountOf, type AccountContext, type Owned } from '../accounts/account.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { StoredTarget } from '../configlog/resources.js';
import type { ConfigProblem } from '../delivery/destination-config.js';
import type { EgressRules } from '../delivery/egress-rules.js';
import type { Removable } from '../delivery/removable-target.js';
import type { DestinationStatusSummary } from '../delivery/status/status-aggregate.js';
import type { TestEventSender } from '../delivery/test-event.js';
import type { HistorySource } from './history/history-routes.js';
import type { Principal } from '../events/envelope.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { TapStreams } from '../tap/tap-streams.js';
import type { AdminStore } from './store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key that sent the request; set by the auth hook on every authenticated route. */
    principal: Principal | null;
    /** The account of that key: every resource the request reads or writes is this account's. */
    account: AccountContext | null;
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
  /** Live taps (src/tap/); absent where this process serves none. */
  readonly taps?: TapStreams;
  /** The delivery history the workers report (src/delivery/history/); absent where this process reads none. */
  readonly history?: HistorySource;
}

/** What the event destination routes need from the delivery side, wired by the composition root. */
export interface DestinationSupport {
  /** What a target may not point at (src/delivery/egress-rules.ts). */
  readonly egress: EgressRules;
  /**
   * A target's create-time guard and, when `check`, its check (src/delivery/verify-target.ts): its first
   * problem, or undefined.
   */
  verify(target: StoredTarget, account: AccountContext, check: boolean): Promise<ConfigProblem | undefined>;
  /** The destination's status over all workers (src/delivery/status/). */
  status(id: string): DestinationStatusSummary;
  /** What deleting a destination with this target may take along (src/delivery/removable-target.ts), or undefined. */
  removable(target: StoredTarget, account: AccountContext): Removable | undefined;
}

/** A resource module: adds its routes to the admin API's Fastify scope. */
export type AdminRouteModule = (app: FastifyInstance, ctx: AdminContext) => void;

/** The principal of an authenticated request (the auth hook guarantees one on every admin route). */
export function principalOf(req: FastifyRequest): Principal {
  if (req.principal === null) throw new Error('an admin route ran without an authenticated principal');
  return req.principal;
}

/** The account the request acts for (the auth hook guarantees one on every admin route). */
export function accountOfRequest(req: FastifyRequest): AccountContext {
  if (req.account === null) throw new Error('an admin route ran without an authenticated account');
  return req.account;
}

/** A Ref: the id and absolute uri of another resource. */
export function ref(ctx: AdminContext, collection: string, id: string): { id: string; uri: string } {
  return { id, uri: ctx.uri(`${collection}/${id}`) };
}

/** The fields a resource answers with first (baseFields, resource-fields.ts): its account among them. */
export function baseView(
  ctx: AdminContext,
  collection: string,
  item: Owned & { readonly id: string; readonly created_at: string; readonly description: string; readonly metadata: string },
): { id: string; uri: string; account_id: string; created_at: string; description: string; metadata: string } {
  return { id: item.id, uri: ctx.uri(`${collection}/${item.id}`), account_id: accountOf(item), created_at: item.created_at, description: item.description, metadata: item.metadata };
}
