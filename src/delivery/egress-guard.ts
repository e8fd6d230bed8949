// The egress rule that needs the network (SECURITY.md "Egress"): a host name whose addresses are refused.
// The kinds' guards (DestinationKind.guard) ask it when a target is set; their writers apply the same rule
// at every connect, through the guarded lookup (src/net/guarded-lookup.ts).
import { isIP } from 'node:net';
import { refusalAmong, systemResolver } from '../net/guarded-lookup.js';
import type { WriterDeps } from './destination-kind.js';

/**
 * Why a destination may not connect to `host`: an IP literal's refusal, or that of the first refused
 * address a name resolves to now. Undefined for a name that does not resolve yet, which reaches nothing
 * until it does, and is checked again then, at the connect.
 */
export async function hostRefusal(host: string, deps: Pick<WriterDeps, 'egress' | 'resolveHost'>): Promise<string | undefined> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return deps.egress.addressRefusal(bare);
  try {
    return refusalAmong(await (deps.resolveHost ?? systemResolver)(bare), deps.egress.addressRefusal);
  } catch {
    return undefined;
  }
}
