// Bounds on one subscription filter, so a hostile filter cannot exhaust CPU, memory or the stack.
import { filterableField } from '../events/catalog.js';
import type { ProgramLimits } from './compiler/program.js';
import type { Extent } from './compiler/work.js';

/** Characters of filter text. A filter names a handful of fields; 4 KiB is far beyond a real one. */
export const MAX_FILTER_LENGTH = 4096;
/**
 * Nesting of brackets and ?: conditionals, measured on the text before parsing: the parser is
 * recursive descent and overflows the stack after a few hundred levels.
 */
export const MAX_NESTING_DEPTH = 32;
/** Nodes of the macro-expanded syntax tree. */
export const MAX_AST_NODES = 1024;
/** Depth of the syntax tree, which the checker and the closures recurse over. */
export const MAX_AST_DEPTH = 64;
/** Elements of one list literal (or entries of one map literal), e.g. `ev.<field> in [...]`. */
export const MAX_LIST_ELEMENTS = 512;
/**
 * The most work one evaluation of a filter may do, in units of about one byte read or written
 * (src/cel/compiler/work.ts): concatenating or searching a string costs its characters, a comprehension
 * its body once per element. A unit took at most about 2 ns on the bench machine
 * (bench/results/filter-cost.md), so a filter at the bound takes 0.1 to 0.2 ms; real filters cost hundreds.
 */
export const MAX_EVALUATION_COST = 100_000;

/**
 * The work of one record's filters across an account's subscriptions and open taps, checked when one
 * is created or changed (the default of ACCOUNT_FILTER_COST_LIMIT): 1,000 subscriptions of 2,000 units, or 20 at the bound.
 */
export const DEFAULT_ACCOUNT_FILTER_COST = 2_000_000;

/** A value nothing bounds is taken as the longest string V8 holds (about 2^30 characters): too costly for any filter. */
const UNBOUNDED = 2 ** 30;

/** The most a filterable field holds: the catalogue's maxLength for a string, checked on every record; an integer is a scalar. */
function filterFieldExtent(_variable: string, path: readonly string[]): Extent | undefined {
  const field = filterableField(path.join('.'));
  if (field === undefined) return undefined;
  return { n: field.type === 'string' ? (field.filter.maxLength ?? UNBOUNDED) : 0 };
}

export const FILTER_LIMITS: ProgramLimits = {
  maxLength: MAX_FILTER_LENGTH,
  maxNesting: MAX_NESTING_DEPTH,
  maxNodes: MAX_AST_NODES,
  maxDepth: MAX_AST_DEPTH,
  maxLiteral: MAX_LIST_ELEMENTS,
  maxCost: MAX_EVALUATION_COST,
  work: { fieldExtent: filterFieldExtent, unknownBytes: UNBOUNDED },
};
