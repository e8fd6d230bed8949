// The calls a writer has in flight, so that close() aborts them: a call after close() is refused, and one
// that fails because the writer was closed under it says so; any other failure is the writer's to classify.
import { DeliveryError } from './errors.js';

export class AbortableCalls {
  private readonly inFlight = new Set<AbortController>();
  private closedFlag = false;

  /** `kind` names the writer in its WRITER_CLOSED messages. */
  constructor(private readonly kind: string) {}

  get closed(): boolean {
    return this.closedFlag;
  }

  ensureOpen(): void {
    if (this.closedFlag) throw new DeliveryError('WRITER_CLOSED', `The ${this.kind} writer is closed.`);
  }

  /** Runs `fn` with a signal close() aborts; a failure comes out as `classify` makes it, or WRITER_CLOSED after a close. */
  async run<T>(fn: (signal: AbortSignal) => Promise<T>, classify: (err: unknown) => DeliveryError): Promise<T> {
    this.ensureOpen();
    const controller = new AbortController();
    this.inFlight.add(controller);
    try {
      return await fn(controller.signal);
    } catch (err) {
      if (this.closedFlag) throw new DeliveryError('WRITER_CLOSED', `The ${this.kind} writer was closed during a call.`, { cause: err });
      throw classify(err);
    } finally {
      this.inFlight.delete(controller);
    }
  }

  /** Refuses new calls and aborts those in flight; false when it was closed already. */
  close(): boolean {
    if (this.closedFlag) return false;
    this.closedFlag = true;
    for (const c of this.inFlight) c.abort();
    return true;
  }
}
