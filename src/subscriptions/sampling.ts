// A source's sample_rate: which of its matches are delivered. The choice is a function of the record's
// identity (topic, partition, offset: the digits its event ids are made of, ids.ts) and the subscription
// id alone, so a record read again after a restart or a rebalance gets the same choice, and two
// subscriptions choose independently of each other.
import { hash } from 'node:crypto';

/** The threshold of a rate that takes every match: no record is ever tested. */
export const SAMPLE_ALL = 2 ** 32;

/** The least rate that keeps some matches: below it the threshold is 0, and none is kept. */
export const MIN_SAMPLE_RATE = 1 / SAMPLE_ALL;

/**
 * The threshold of a rate: a match is kept when its 32-bit hash is below it. The share kept is
 * floor(rate * 2^32) / 2^32, within 2.4e-10 of the rate.
 */
export function sampleThreshold(rate: number | undefined): number {
  if (rate === undefined || !(rate < 1)) return SAMPLE_ALL;
  return Math.max(0, Math.floor(rate * SAMPLE_ALL));
}

/** A subscription's two 32-bit seeds, from SHA-256 of its id. */
export function sampleSeed(subscriptionId: string): Uint32Array {
  const bytes = hash('sha256', `sample\0${subscriptionId}`, 'buffer');
  return Uint32Array.of(bytes.readUInt32BE(0), bytes.readUInt32BE(4));
}

/** murmur3's 32-bit finalizer: every input bit flips each output bit with probability about 1/2. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 30 bits from six of the record's five-bit digits, from `at`. */
function word(digits: Uint8Array, at: number): number {
  let w = 0;
  for (let i = at; i < at + 6; i++) w = w * 32 + (digits[i] as number);
  return w;
}

/**
 * Whether a match is kept: the record's digits (60 of their 80 bits, SHA-256 of its identity) mixed with
 * the subscription's seeds. Each subscription sees a different hash of the same record, so their choices
 * are independent; the same record and subscription always give the same choice.
 */
export function sampled(recordDigits: Uint8Array, seed: Uint32Array, threshold: number): boolean {
  if (threshold >= SAMPLE_ALL) return true;
  const h = fmix32(fmix32(word(recordDigits, 0) ^ (seed[0] as number)) ^ word(recordDigits, 6) ^ (seed[1] as number));
  return h < threshold;
}
