// The admin API's resource modules, in the order their routes appear in the OpenAPI document.
// A new resource adds its `register<Thing>Routes` here.
import { registerAccountRoutes } from './accounts/account-routes.js';
import { registerApiKeyRoutes } from './api-keys/api-key-routes.js';
import type { AdminRouteModule } from './context.js';
import { registerEventDestinationRoutes } from './event-destinations/destination-routes.js';
import { registerTestEventRoute } from './event-destinations/test-event-route.js';
import { registerEventSourceRoutes } from './event-subscriptions/source-routes.js';
import { registerEventSubscriptionRoutes } from './event-subscriptions/subscription-routes.js';
import { registerHistoryRoutes } from './history/history-routes.js';
import { registerIpPolicyRuleRoutes } from './ip-policies/ip-policy-rule-routes.js';
import { registerIpPolicyRoutes } from './ip-policies/ip-policy-routes.js';
import { registerIpRestrictionRoutes } from './ip-restriction/ip-restriction-routes.js';
import { registerReservedDomainRoutes } from './reserved-domains/reserved-domain-routes.js';
import { registerTapRoutes } from './tap/tap-routes.js';
import { registerTcpAddressRoutes } from './tcp-addresses/tcp-address-routes.js';
import { registerTcpEdgeRoutes } from './tcp-edges/tcp-edge-routes.js';

export const ADMIN_ROUTE_MODULES: readonly AdminRouteModule[] = [
  registerAccountRoutes,
  registerApiKeyRoutes,
  registerReservedDomainRoutes,
  registerTcpAddressRoutes,
  registerIpPolicyRoutes,
  registerIpPolicyRuleRoutes,
  registerTcpEdgeRoutes,
  registerIpRestrictionRoutes,
  registerEventDestinationRoutes,
  registerTestEventRoute,
  registerEventSubscriptionRoutes,
  registerEventSourceRoutes,
  registerHistoryRoutes,
  registerTapRoutes,
];
