// How long one turn of the event loop may route records before it lets timers, sockets and other
// partitions' batches run (ARCHITECTURE.md "Isolation"). A batch's filters are bounded per record
// (src/cel/limits.ts, ACCOUNT_FILTER_COST_LIMIT), not per batch: without this, 200 records of an
// account at its bound held the loop for seconds and let heartbeats, /healthz and delivery timers lapse.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Milliseconds of routing per turn. One record's work is bounded apart, so a turn ends within this plus one record. */
export const ROUTE_TURN_MS = 20;

export class TurnBudget {
  private start: number;

  constructor(
    private readonly ms = ROUTE_TURN_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.start = now();
  }

  /** True once this turn has routed for its time. */
  spent(): boolean {
    return this.now() - this.start >= this.ms;
  }

  /** Lets the event loop run everything that waits (setImmediate: after I/O and timers), then starts a new turn. */
  async yield(): Promise<void> {
    await nextTurn();
    this.start = this.now();
  }
}
