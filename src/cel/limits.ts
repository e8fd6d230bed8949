// Bounds on one subscription filter, so a hostile filter cannot exhaust CPU, memory or the stack.
import type { ProgramLimits } from './compiler/program.js';

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
/** Upper bound on the steps one evaluation may take, counting each comprehension body once per element. */
export const MAX_EVALUATION_COST = 100_000;

export const FILTER_LIMITS: ProgramLimits = {
  maxLength: MAX_FILTER_LENGTH,
  maxNesting: MAX_NESTING_DEPTH,
  maxNodes: MAX_AST_NODES,
  maxDepth: MAX_AST_DEPTH,
  maxLiteral: MAX_LIST_ELEMENTS,
  maxCost: MAX_EVALUATION_COST,
};
