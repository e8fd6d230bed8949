// The HMAC-SHA256 request signature of the http destination (the scheme receivers verify; see README.md here).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-edge-signature';

/** Receivers should refuse signatures older (or newer) than this, to blunt replays. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, timestamp: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The header value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export function signBody(secret: string, body: Buffer | string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hmacHex(secret, timestampSeconds, body)}`;
}

export interface VerifyOptions {
  readonly nowSeconds?: number;
  readonly toleranceSeconds?: number;
}

/**
 * True when `header` carries a v1 signature of exactly `body` made with `secret`, within the time
 * tolerance. Several v1 entries are accepted (any may match), as receivers are told to (README.md here);
 * the service itself signs with one secret. The comparison is constant-time.
 */
export function verifySignature(secret: string, header: string | undefined, body: Buffer | string, opts: VerifyOptions = {}): boolean {
  if (header === undefined) return false;
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === undefined || candidates.length === 0) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  return candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
}
