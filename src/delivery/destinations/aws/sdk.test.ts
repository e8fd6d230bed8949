// Unit tests of the AWS SDK's lazy loading: registering the kinds and building a writer loads no SDK
// module; a writer's first call does; a lazily built client is destroyed whenever it comes.
import { describe, expect, it, vi } from 'vitest';
import { createWriter } from '../../writer-registry.js';
import { LazyClient } from './sdk.js';
import type { DeliveryError } from '../../errors.js';
import { OPERATOR } from '../../../accounts/account.js';
import { writerDeps } from '../../../../test/support/writer-deps.js';

const loads = vi.hoisted(() => ({ kinesis: 0, handler: 0 }));

vi.mock('@aws-sdk/client-kinesis', async (importOriginal) => {
  loads.kinesis++;
  return importOriginal();
});
vi.mock('@smithy/node-http-handler', async (importOriginal) => {
  loads.handler++;
  return importOriginal();
});

const target = {
  data_stream: {
    stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/edge-events',
    auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 'a-very-secret-key' } },
    // Nothing listens on port 1 of loopback: the call fails at once, after the SDK is loaded.
    endpoint: 'http://127.0.0.1:1',
  },
};
const deps = writerDeps({ cloud: { timeoutMs: 1_000 } });

describe('the AWS SDK', () => {
  it('should stay unloaded until a cloud writer makes its first call, then load once', async () => {
    const writer = createWriter(target, deps, OPERATOR);
    expect(writer.kind).toBe('data_stream');
    expect(loads).toEqual({ kinesis: 0, handler: 0 });

    const err = (await writer.healthcheck().then(() => undefined, (e: unknown) => e)) as DeliveryError;
    expect(err.code).toBe('DESTINATION_UNHEALTHY');
    await writer.healthcheck().catch(() => undefined);
    expect(loads).toEqual({ kinesis: 1, handler: 1 });
    await writer.close();
  });
});

class FakeClient {
  destroyed = false;
  destroy(): void {
    this.destroyed = true;
  }
}

describe('LazyClient', () => {
  it('should build the client on the first get() only and hand every caller the same one', async () => {
    const create = vi.fn(() => Promise.resolve(new FakeClient()));
    const lazy = new LazyClient(create);
    expect(create).not.toHaveBeenCalled();
    const [a, b] = await Promise.all([lazy.get(), lazy.get()]);
    expect(a).toBe(b);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('should destroy a client that is still being built once it is ready, and refuse get() after destroy()', async () => {
    let finish: (c: FakeClient) => void = () => undefined;
    const lazy = new LazyClient(() => new Promise<FakeClient>((resolve) => (finish = resolve)));
    const pending = lazy.get();
    lazy.destroy();
    const client = new FakeClient();
    finish(client);
    await pending;
    await new Promise((r) => setImmediate(r));
    expect(client.destroyed).toBe(true);
    await expect(lazy.get()).rejects.toThrow('destroyed');
  });

  it('should never build a client that was not asked for before destroy()', () => {
    const create = vi.fn(() => Promise.resolve(new FakeClient()));
    new LazyClient(create).destroy();
    expect(create).not.toHaveBeenCalled();
  });

  it('should try again after a failed build', async () => {
    const create = vi.fn().mockRejectedValueOnce(new Error('no module')).mockResolvedValueOnce(new FakeClient());
    const lazy = new LazyClient<FakeClient>(create);
    await expect(lazy.get()).rejects.toThrow('no module');
    await expect(lazy.get()).resolves.toBeInstanceOf(FakeClient);
  });
});
