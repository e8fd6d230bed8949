// Before-and-after comparisons in the same minutes: a configuration whose name ends in "@base" runs from
// the checkout BASE_ROOT names, every other one from this checkout.
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('../../', import.meta.url));

export function rootOf(name: string): string {
  if (!name.endsWith('@base')) return here;
  const base = process.env.BASE_ROOT;
  if (base === undefined) throw new Error(`${name} needs BASE_ROOT, a checkout to compare with`);
  return base;
}
