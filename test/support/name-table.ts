// A resolver for the egress tests (the service's resolveHost override): the test's names answered with
// addresses of its choosing from a table it may change, every other name through the system's resolver.
import { systemResolver, type HostResolver, type ResolvedAddress } from '../../src/net/guarded-lookup.js';

export class NameTable {
  readonly answers = new Map<string, readonly ResolvedAddress[]>();
  readonly resolve: HostResolver = (host) => {
    const answer = this.answers.get(host);
    return answer === undefined ? systemResolver(host) : Promise.resolve(answer);
  };

  set(host: string, ...addresses: string[]): void {
    this.answers.set(host, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }
}
