// The AWS SDK, loaded on first use. Its client modules cost a process about 14 MiB of RSS once
// loaded, so a worker whose destinations are all kafka, http or file never loads them
// (bench/results/memory.md); the first cloud destination's first call does.

/** A module loaded once, on the first call; a failed load is tried again on the next call. */
function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}

export const kinesisSdk = lazy(() => import('@aws-sdk/client-kinesis'));
export const firehoseSdk = lazy(() => import('@aws-sdk/client-firehose'));
export const logsSdk = lazy(() => import('@aws-sdk/client-cloudwatch-logs'));
export const s3Sdk = lazy(() => import('@aws-sdk/client-s3'));
export const stsSdk = lazy(() => import('@aws-sdk/client-sts'));
export const httpHandlerSdk = lazy(() => import('@smithy/node-http-handler'));

/**
 * An SDK client built on the first get() (loading its module then), and destroyed by destroy()
 * whether it is built, being built, or never asked for.
 */
export class LazyClient<T extends { destroy(): void }> {
  private client: Promise<T> | undefined;
  private destroyed = false;

  constructor(private readonly create: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.destroyed) return Promise.reject(new Error('The SDK client was destroyed.'));
    this.client ??= this.create().catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }

  destroy(): void {
    this.destroyed = true;
    void this.client?.then(
      (c) => c.destroy(),
      () => undefined,
    );
  }
}
