// The shared writer contract, run for each cloud writer against the AWS emulator through a proxy that
// can take the endpoint away (the "reconnect" case).
import { afterAll } from 'vitest';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { describeWriterContract } from '../delivery/writer-contract.js';
import { createResource, motoEndpoint, readAtLeast, targetFor, type CloudResourceKind } from './cloud-fixtures.js';
import { writerDeps } from '../../support/writer-deps.js';

const proxies: AwsFaultProxy[] = [];
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.stop()));
});

for (const kind of ['delivery_stream', 'data_stream', 'log_service'] as const satisfies readonly CloudResourceKind[]) {
  describeWriterContract(kind, async () => {
    const resource = await createResource(kind);
    const proxy = new AwsFaultProxy(motoEndpoint());
    await proxy.start();
    proxies.push(proxy);
    return {
      createWriter: async () =>
        createWriter(targetFor(resource, { endpoint: proxy.endpoint }), writerDeps({ cloud: { timeoutMs: 5_000 } })),
      readBack: async (atLeast) => (await readAtLeast(resource, atLeast)).map((r) => r.envelope),
      disrupt: () => proxy.stop(),
      restore: () => proxy.start(),
      cleanup: () => proxy.stop(),
    };
  });
}
