// The live destinations of this process, built from the config log: one runner (queue, batcher, retry)
// per destination, replaced when the destination changes and drained when it is deleted. Every stored
// destination has a runner, also one whose writer cannot be built: its events are parked with the reason.
// The destinations found at start are checked (verify-target.ts), so one that cannot take events says so
// before its first event.
import { accountContext, accountOf } from '../accounts/account.js';
import type { ConfigChange, ConfigLog } from '../configlog/config-log.js';
import type { StoredDestination } from '../configlog/resources.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { createLogger } from '../telemetry/logger.js';
import type { RetryPolicy } from './backoff.js';
import { buildWriter, destinationSecrets } from './build-writer.js';
import type { DeliveryItem, DestinationWriter } from './contract.js';
import { destinationRemovedLetter, writtenLetters, type DeadLetter, type DeadLetterSink } from './dead-letter.js';
import { DestinationHealth, type DestinationStatus } from './destination-health.js';
import type { WriterDeps } from './destination-kind.js';
import { DestinationRunner } from './destination-runner.js';
import { DeliveryError } from './errors.js';
import type { DeliveryTally } from './history/history-recorder.js';
import type { InFlightBudget } from './in-flight-budget.js';
import type { BatchingOptions, OnBudgetExhausted, SettlementListener } from './runner-options.js';
import { verifyTarget } from './verify-target.js';

export interface DestinationPoolOptions {
  readonly deps: WriterDeps;
  readonly budget: InFlightBudget;
  readonly deadLetter: DeadLetterSink;
  readonly onSettled: SettlementListener;
  readonly secrets: SecretBox;
  readonly batching?: Partial<BatchingOptions>;
  readonly retry?: Partial<RetryPolicy>;
  /** Builds the budget-exhausted hook of one destination (parking: src/delivery/parking/). */
  readonly onBudgetExhausted?: (destinationId: string) => OnBudgetExhausted;
  /** PARK_AFTER_MS (runner-options.ts), for runners with a budget-exhausted hook that parks. */
  readonly parkAfterMs?: number;
  /** Wraps each destination's writer (parking's fail-fast circuit). */
  readonly wrapWriter?: (destinationId: string, writer: DestinationWriter) => DestinationWriter;
  /** How long a replaced or deleted destination may drain. */
  readonly drainTimeoutMs?: number;
  /** The tally each destination's runner counts its deliveries into (src/delivery/history/). */
  readonly tally?: (destinationId: string) => DeliveryTally;
  /** Check the destinations found at start (default true). */
  readonly verifyAtStart?: boolean;
}

/** How long a replaced or deleted destination may drain, unless drainTimeoutMs says. */
const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** Destinations checked at once at start: a fleet restart must not burst every cloud account. */
const START_CHECKS_AT_ONCE = 4;

const log = createLogger('destinations');

export class DestinationPool {
  private readonly runners = new Map<string, DestinationRunner>();
  /** Kept across runner replacements, so a fixed destination's state moves on from where it was. */
  private readonly health = new Map<string, DestinationHealth>();
  /** Each destination's target as last built (JSON), to tell a target change from a description change. */
  private readonly targets = new Map<string, string>();
  private readonly closing = new Set<Promise<unknown>>();
  private unsubscribe: (() => void) | undefined;
  private shuttingDown = false;

  constructor(private readonly opts: DestinationPoolOptions) {}

  follow(configLog: ConfigLog): void {
    const found = configLog.list('event_destination').map((v) => v.data as unknown as StoredDestination);
    for (const dest of found) this.put(dest);
    this.unsubscribe = configLog.onChange((change) => this.onChange(change));
    if (this.opts.verifyAtStart !== false) void this.checkAll(found);
  }

  get(id: string): DestinationRunner | undefined {
    return this.runners.get(id);
  }

  all(): IterableIterator<DestinationRunner> {
    return this.runners.values();
  }

  /** A destination's state, last error and last delivery as this process sees it. */
  status(id: string): DestinationStatus | undefined {
    return this.health.get(id)?.status;
  }

  /** Tells a destination's status that a record has waited for it past the bound since `since`, or no longer (undefined). */
  stalled(id: string, since: number | undefined): void {
    this.health.get(id)?.stalled(since);
  }

  /** Every destination of the config with this process's view of it (what the status publisher reports). */
  *statuses(): IterableIterator<readonly [string, DestinationStatus]> {
    for (const [id, health] of this.health) yield [id, health.status];
  }

  /** Drains every runner within the deadline and closes its writer. */
  async close(deadlineMs: number): Promise<void> {
    this.unsubscribe?.();
    // At shutdown, what is not delivered stays unsettled: its offsets are not committed and it is read again.
    this.shuttingDown = true;
    const all = [...this.runners.values()].map((r) => r.close(deadlineMs));
    this.runners.clear();
    await Promise.allSettled([...all, ...this.closing]);
  }

  private onChange(change: ConfigChange): void {
    if (change.kind !== 'event_destination') return;
    if (change.after === undefined) {
      this.retire(change.id);
      this.health.delete(change.id);
      this.targets.delete(change.id);
    } else {
      this.put(change.after.data as unknown as StoredDestination);
    }
  }

  private put(dest: StoredDestination): void {
    const old = this.runners.get(dest.id);
    let health = this.health.get(dest.id);
    if (health === undefined) this.health.set(dest.id, (health = new DestinationHealth(dest.id)));
    const target = JSON.stringify(dest.target);
    const before = this.targets.get(dest.id);
    this.targets.set(dest.id, target);
    if (before !== undefined && before !== target) health.reconfigured();
    // The destination's own account: its kind builds the writer under that account's rules.
    health.useSecrets(destinationSecrets(dest.target, this.opts.secrets));
    const { writer: built, problem } = buildWriter(dest.target, this.opts.secrets, this.opts.deps, accountContext(accountOf(dest)));
    if (problem !== undefined) health.misconfigured(problem);
    // Wrapped before the hook is made: parking pairs a runner's hook with its writer's circuit.
    const writer = this.opts.wrapWriter?.(dest.id, built) ?? built;
    const runner = new DestinationRunner({
      destinationId: dest.id,
      writer,
      budget: this.opts.budget,
      deadLetter: this.opts.deadLetter,
      onSettled: this.opts.onSettled,
      batching: this.opts.batching,
      // Retrying cannot fix a config: a destination that cannot run parks at its first failed attempt.
      retry: problem === undefined ? this.opts.retry : { ...this.opts.retry, maxAttempts: 1 },
      onBudgetExhausted: this.opts.onBudgetExhausted?.(dest.id),
      ...(this.opts.onBudgetExhausted !== undefined && this.opts.parkAfterMs !== undefined && { parkAfterMs: this.opts.parkAfterMs }),
      onAbandoned: (items) => this.adopt(dest.id, items),
      health,
      ...(this.opts.tally !== undefined && { tally: this.opts.tally(dest.id) }),
    });
    runner.start();
    this.runners.set(dest.id, runner);
    // Queued events move to the new runner at once (the old config may be the broken one being fixed);
    // the old runner only finishes the batches it is writing.
    if (old !== undefined) {
      old.discard(() => true);
      this.retire(dest.id, old);
    }
  }

  /**
   * Deliveries a runner gave up: queued again on the destination's current runner when it was replaced,
   * dead-lettered when the destination was deleted, left unsettled at shutdown.
   */
  private adopt(id: string, items: readonly DeliveryItem[]): void {
    if (this.shuttingDown) return;
    const current = this.runners.get(id);
    const rest = current === undefined ? items : items.filter((item) => !current.enqueue(item));
    if (rest.length === 0) return;
    const itemOf = new Map(rest.map((item) => [destinationRemovedLetter(id, item, 'before this event was delivered to it'), item]));
    const letters = [...itemOf.keys()];
    const settle = (written: readonly DeadLetter[]): void => {
      for (const letter of written) this.opts.onSettled(itemOf.get(letter) as DeliveryItem, 'dead_lettered', id);
    };
    // Bounded as the destination's drain is: a deleted destination's work ends.
    this.opts.deadLetter.send(letters, AbortSignal.timeout(this.opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS)).then(
      () => settle(letters),
      (err: unknown) => {
        const written = writtenLetters(letters, err);
        settle(written);
        log.warn({ err, destination: id, records: letters.length - written.length }, 'Events of a deleted destination were not dead-lettered; they will be read again.');
      },
    );
  }

  private retire(id: string, old = this.runners.get(id)): void {
    if (old === undefined) return;
    if (this.runners.get(id) === old) this.runners.delete(id);
    const done = old.close(this.opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS).finally(() => this.closing.delete(done));
    this.closing.add(done);
  }

  /**
   * Checks the destinations found at start, a few at a time. One that fails (a topic that cannot be
   * created, a stream that is gone, a role that cannot be assumed) shows failing with the reason at once;
   * its events are still tried, and parked, as any failing destination's. Checks still running at a stop
   * end by their own deadline (VERIFY_TIMEOUT_MS), and their outcome is dropped.
   */
  private async checkAll(found: readonly StoredDestination[]): Promise<void> {
    const queue = [...found];
    const unchanged = (dest: StoredDestination): boolean => this.targets.get(dest.id) === JSON.stringify(dest.target);
    const checker = async (): Promise<void> => {
      for (let dest = queue.shift(); dest !== undefined && !this.shuttingDown; dest = queue.shift()) {
        const health = this.health.get(dest.id);
        // A destination whose writer cannot be built says so already; one changed since was checked by the API.
        if (health === undefined || health.status.lastError?.code === 'DESTINATION_MISCONFIGURED' || !unchanged(dest)) continue;
        const problem = await verifyTarget(dest.target, this.opts.secrets, this.opts.deps, accountContext(accountOf(dest)));
        if (problem !== undefined && !this.shuttingDown && unchanged(dest)) {
          health.checkFailed(new DeliveryError(problem.deliveryCode ?? 'DESTINATION_MISCONFIGURED', problem.message));
        }
      }
    };
    await Promise.all(Array.from({ length: START_CHECKS_AT_ONCE }, checker));
  }
}
