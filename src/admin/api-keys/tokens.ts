// API key tokens: generation, the stored hash, and the id a bootstrap token maps to.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { ID_PREFIXES } from '../../ids.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 bits of entropy (log2(62) * 43 = 256.03). */
const TOKEN_CHARS = 43;
export const TOKEN_PREFIX = 'eek_';
/** The shape of a token newToken() makes, for the API's schema of the creation response. */
export const TOKEN_PATTERN = `^${TOKEN_PREFIX}[0-9A-Za-z]{${TOKEN_CHARS}}$`;

/** A fresh token such as "eek_3kTz…": URL- and header-safe, prefix easy to spot by secret scanners. */
export function newToken(): string {
  let out = TOKEN_PREFIX;
  for (let i = 0; i < TOKEN_CHARS; i++) out += BASE62[randomInt(62)];
  return out;
}

/**
 * The stored form of a token. A token is 256 random bits, so a plain SHA-256 is not open to guessing
 * (no salt or slow hash needed, unlike passwords); the config log never holds the token itself.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The id of the key bootstrapped from `tokenHash`: derived from the hash, so replicas that start at the
 * same time with the same API_BOOTSTRAP_TOKEN write the same key instead of two. Its time part is zero,
 * so it sorts as the oldest key.
 */
export function bootstrapKeyId(tokenHash: string): string {
  const digest = createHash('sha256').update(`bootstrap\0${tokenHash}`).digest();
  let bits = 0n;
  for (const b of digest.subarray(0, 10)) bits = (bits << 8n) | BigInt(b);
  let body = '';
  for (let i = 0; i < 16; i++) {
    body = CROCKFORD[Number(bits & 31n)] + body;
    bits >>= 5n;
  }
  return `${ID_PREFIXES.api_key}_${'0'.repeat(10)}${body}`;
}
