// The fault scenarios, in the order `npm run chaos` runs them.
import type { Scenario } from '../harness/scenario.js';
import { brokerRestart } from './broker-restart.js';
import { configChurn } from './config-churn.js';
import { destinationOutage } from './destination-outage.js';
import { hostileTenant } from './hostile-tenant.js';
import { killWorker } from './kill-worker.js';
import { model } from './model.js';
import { misconfiguredDestination } from './misconfigured-destination.js';
import { oversizeParking } from './oversize-parking.js';
import { poisonRecords } from './poison-records.js';
import { rebalanceBurst } from './rebalance-burst.js';
import { sigtermRedrive } from './sigterm-redrive.js';

export const SCENARIOS: readonly Scenario[] = [killWorker, brokerRestart, destinationOutage, poisonRecords, configChurn, misconfiguredDestination, oversizeParking, sigtermRedrive, rebalanceBurst, model, hostileTenant];
