// Zipf's law over ranks 1..n: the popularity of hosts (a few are very busy, thousands are quiet) and of client networks.
import { WeightedChoice, type Random } from './random.js';

/**
 * P(rank k) = (1 / k^s) / H(n, s), where H(n, s) = sum of 1 / i^s for i = 1..n. Web traffic by host
 * follows this closely with s near 1. Sampling is a binary search over the precomputed cumulative
 * distribution: O(n) memory once, O(log n) per draw.
 */
export class Zipf {
  private readonly choice: WeightedChoice<number>;

  constructor(
    readonly n: number,
    readonly exponent: number,
  ) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`Zipf needs a whole number of ranks >= 1, got ${n}`);
    if (!(exponent >= 0)) throw new RangeError(`Zipf needs an exponent >= 0, got ${exponent}`);
    this.choice = new WeightedChoice(Array.from({ length: n }, (_, i) => [i + 1, 1 / (i + 1) ** exponent] as const));
  }

  /** P(rank), rank in 1..n. */
  probability(rank: number): number {
    return rank < 1 || rank > this.n ? 0 : this.choice.probability(rank - 1);
  }

  /** A rank in 1..n. */
  draw(r: Random): number {
    return this.choice.indexOf(r()) + 1;
  }
}
