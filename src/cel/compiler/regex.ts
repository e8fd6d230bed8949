// RE2 regular expressions for matches(): linear-time matching, never a backtracking JavaScript RegExp.
//
// CEL spec, matches: "Tests whether the string matches the RE2 regular expression"; the match is
// unanchored (a search), so it is RE2's test(), not a full match.
import { RE2JS } from '@bufbuild/re2';
import { CelErr } from './values.js';

export interface CompiledRegex {
  test(input: string): boolean;
}

/** Compiles a pattern, or returns a CelErr describing why it is not valid RE2 syntax. */
export function compileRegex(pattern: string): CompiledRegex | CelErr {
  try {
    const re = RE2JS.compile(pattern);
    return { test: (input: string) => re.test(input) };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return new CelErr(`invalid regular expression '${pattern}': ${reason}`);
  }
}

const CACHE_SIZE = 64;
const cache = new Map<string, CompiledRegex | CelErr>();

/** For patterns only known at run time: a small LRU so a pattern taken from a field is not recompiled per record. */
export function cachedRegex(pattern: string): CompiledRegex | CelErr {
  const hit = cache.get(pattern);
  if (hit !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, hit);
    return hit;
  }
  const re = compileRegex(pattern);
  cache.set(pattern, re);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return re;
}
