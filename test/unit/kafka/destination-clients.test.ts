// A kafka destination's client is not kept once its writer or check lets go of it: no cache by broker
// list that grows with every list ever given (review finding 8b). Checked with the garbage collector.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { DestinationClients } from '../../../src/kafka/destination-clients.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('should keep no client of a broker list once nothing uses it, and one client for the own cluster', async () => {
  const clients = new DestinationClients({ name: 'platformatic', ownBrokers: ['127.0.0.1:9092'], connectGuard: async (host) => ({ address: host, family: 4 }), retries: 2 });
  expect(clients.for()).toBe(clients.for([]));
  const refs: WeakRef<object>[] = [];
  (() => {
    for (let i = 0; i < 100; i++) refs.push(new WeakRef(clients.for([`broker-${i}.example.net:9092`])));
  })();
  for (let i = 0; i < 5 && refs.some((r) => r.deref() !== undefined); i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
});
