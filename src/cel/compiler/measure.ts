// Cheap measurements that bound hostile expressions: bracket nesting before parsing, AST size and depth after.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

export interface NestingScan {
  /** Deepest nesting of ( [ { plus chained ?: conditionals, each of which recurses in the parser. */
  readonly depth: number;
  /** Offset of the character that first exceeded `limit`, if any. */
  readonly offendingOffset: number | undefined;
  /**
   * A malformed string literal, found here because the parser reports these badly (an unclosed
   * quote as an error at an earlier operator, a bad escape with no position at all).
   */
  readonly literalError?: { readonly offset: number; readonly message: string };
  /**
   * The first bracket that is never closed, closes nothing or closes a bracket of another kind, found here
   * for the same reason: the parser reports a missing ")" where it gave up, often an earlier operator.
   */
  readonly bracketError?: { readonly offset: number; readonly message: string };
}

const CLOSER_OF: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };
const OPEN = new Set(Object.keys(CLOSER_OF));
const CLOSE = new Set(Object.values(CLOSER_OF));

/**
 * Scans the text once, skipping string literals and comments, and measures how deeply the parser
 * would recurse. The parser is recursive descent with ~10 frames per bracket level and overflows
 * the stack after a few hundred levels, so this must run before it.
 */
export function scanNesting(text: string, limit: number): NestingScan {
  let depth = 0;
  let max = 0;
  let offending: number | undefined;
  let literalError: NestingScan['literalError'];
  const ternaries: number[] = [0];
  /** Offsets of the brackets open at i, innermost last. */
  const open: number[] = [];
  let bracketError: NestingScan['bracketError'];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i] as string;
    if (c === '"' || c === "'") {
      const end = skipString(text, i);
      literalError ??= end.error;
      i = end.next;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      // The parser ends a comment at either line break.
      while (i < n && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    if (OPEN.has(c)) {
      depth++;
      ternaries.push(0);
      open.push(i);
    } else if (CLOSE.has(c)) {
      const opener = open.pop();
      if (opener === undefined) bracketError ??= { offset: i, message: `This ${c} closes nothing: no bracket before it is open.` };
      else if (CLOSER_OF[text[opener] as string] !== c) {
        const o = text[opener] as string;
        bracketError ??= { offset: i, message: `This ${c} cannot close the ${o} before it, which needs ${CLOSER_OF[o] as string}.` };
      }
      // An unmatched closer is a syntax error the parser reports; it must not lower the depth.
      if (ternaries.length > 1) depth -= 1 + (ternaries.pop() as number);
    } else if (c === ',') {
      // A comma ends an element or argument, and with it the conditionals inside it.
      depth -= ternaries[ternaries.length - 1] as number;
      ternaries[ternaries.length - 1] = 0;
    } else if (c === '?') {
      depth++;
      ternaries[ternaries.length - 1] = (ternaries[ternaries.length - 1] as number) + 1;
    }
    if (depth > max) {
      max = depth;
      if (max > limit && offending === undefined) offending = i;
    }
    i++;
  }
  const unclosed = open.pop();
  if (unclosed !== undefined) bracketError ??= { offset: unclosed, message: `This ${text[unclosed] as string} is not closed.` };
  return {
    depth: max,
    offendingOffset: offending,
    ...(literalError !== undefined && { literalError }),
    ...(bracketError !== undefined && { bracketError }),
  };
}

const HEX = /^[0-9a-fA-F]+$/;
const SIMPLE_ESCAPES = new Set(['a', 'b', 'f', 'n', 'r', 't', 'v', '\\', "'", '"', '`', '?']);

/**
 * CEL spec, String and bytes literals: escapes are \a \b \f \n \r \t \v \\ \' \" \` \?, octal
 * \[0-3][0-7][0-7], \x or \X with two hex digits, \u with four and \U with eight (a valid code point).
 * Returns the length of the escape at `i` (a backslash), or 0 when it is not valid.
 */
function escapeLength(text: string, i: number): number {
  const c = text[i + 1] ?? '';
  if (SIMPLE_ESCAPES.has(c)) return 2;
  if (c >= '0' && c <= '3') return /^[0-7]{2}$/.test(text.slice(i + 2, i + 4)) ? 4 : 0;
  const hexDigits = c === 'x' || c === 'X' ? 2 : c === 'u' ? 4 : c === 'U' ? 8 : 0;
  if (hexDigits === 0) return 0;
  const digits = text.slice(i + 2, i + 2 + hexDigits);
  if (digits.length !== hexDigits || !HEX.test(digits)) return 0;
  if (c === 'u' || c === 'U') {
    const cp = Number.parseInt(digits, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  }
  return 2 + hexDigits;
}

/** Skips the string literal starting at `start` (a quote character); reports an unclosed literal or a bad escape. */
function skipString(text: string, start: number): { next: number; error?: { offset: number; message: string } } {
  const q = text[start] as string;
  // A raw string's prefix (r, R, possibly with b/B) sits just before the quote.
  const prev = text[start - 1];
  const prev2 = text[start - 2];
  const raw = prev === 'r' || prev === 'R' || ((prev === 'b' || prev === 'B') && (prev2 === 'r' || prev2 === 'R'));
  const triple = text[start + 1] === q && text[start + 2] === q;
  let error: { offset: number; message: string } | undefined;
  let i = start + (triple ? 3 : 1);
  while (i < text.length) {
    const c = text[i];
    if (!raw && c === '\\') {
      const n = escapeLength(text, i);
      if (n === 0) {
        error ??= { offset: i, message: `The escape sequence '${text.slice(i, i + 2)}' in this string literal is not valid CEL.` };
        i += 2;
      } else i += n;
      continue;
    }
    if (c === q && (!triple || (text[i + 1] === q && text[i + 2] === q))) return error === undefined ? { next: i + (triple ? 3 : 1) } : { next: i + (triple ? 3 : 1), error };
    if (!triple && (c === '\n' || c === '\r')) break;
    i++;
  }
  return { next: i, error: { offset: start, message: 'The string literal that starts here is not closed.' } };
}

export interface AstStats {
  readonly nodes: number;
  readonly depth: number;
  /** Elements of the largest list literal or entries of the largest map literal. */
  readonly largestLiteral: number;
  /** Elements and entries of all list and map literals together: no list value can be longer. */
  readonly literalElements: number;
}

export function childrenOf(e: Expr): Expr[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return k.value.operand ? [k.value.operand] : [];
    case 'callExpr':
      return k.value.target ? [k.value.target, ...k.value.args] : [...k.value.args];
    case 'listExpr':
      return [...k.value.elements];
    case 'structExpr': {
      const out: Expr[] = [];
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') out.push(en.keyKind.value);
        if (en.value) out.push(en.value);
      }
      return out;
    }
    case 'comprehensionExpr': {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter((x): x is Expr => x !== undefined);
    }
    default:
      return [];
  }
}

/** Iterative, so it is safe on any tree the parser produced. Stops counting past `maxNodes`. */
export function measureAst(root: Expr, maxNodes: number): AstStats {
  let nodes = 0;
  let depth = 0;
  let largest = 0;
  let total = 0;
  const stack: [Expr, number][] = [[root, 1]];
  while (stack.length > 0 && nodes <= maxNodes) {
    const [e, d] = stack.pop() as [Expr, number];
    nodes++;
    if (d > depth) depth = d;
    const k = e.exprKind;
    const literal = k.case === 'listExpr' ? k.value.elements.length : k.case === 'structExpr' ? k.value.entries.length : 0;
    if (literal > largest) largest = literal;
    total += literal;
    for (const c of childrenOf(e)) stack.push([c, d + 1]);
  }
  return { nodes, depth, largestLiteral: largest, literalElements: total };
}

/**
 * An upper bound on the steps one evaluation takes, counting each node once and each comprehension
 * body once per element of its range. Recursive; call only on trees within the depth limit.
 */
export function estimateCost(e: Expr, maxListLength: number): number {
  const k = e.exprKind;
  if (k.case === 'comprehensionExpr') {
    const c = k.value;
    const part = (x: Expr | undefined): number => (x ? estimateCost(x, maxListLength) : 0);
    const range = c.iterRange ? lengthBound(c.iterRange, maxListLength) : 0;
    return part(c.iterRange) + part(c.accuInit) + part(c.result) + range * (part(c.loopCondition) + part(c.loopStep) + 1);
  }
  let sum = 1;
  for (const c of childrenOf(e)) sum += estimateCost(c, maxListLength);
  return sum;
}

/** An upper bound on the length of the list or map an expression yields. */
function lengthBound(e: Expr, fallback: number): number {
  const k = e.exprKind;
  switch (k.case) {
    case 'listExpr':
      return k.value.elements.length;
    case 'structExpr':
      return k.value.entries.length;
    case 'comprehensionExpr': {
      // map() and filter() yield at most one element per element of their range.
      const init = k.value.accuInit?.exprKind;
      if (init?.case === 'listExpr' && init.value.elements.length === 0 && k.value.iterRange)
        return lengthBound(k.value.iterRange, fallback);
      return fallback;
    }
    case 'callExpr':
      if (k.value.function === '_+_' && k.value.args.length === 2)
        return Math.min(fallback, lengthBound(k.value.args[0] as Expr, fallback) + lengthBound(k.value.args[1] as Expr, fallback));
      if (k.value.function === '_?_:_' && k.value.args.length === 3)
        return Math.max(lengthBound(k.value.args[1] as Expr, fallback), lengthBound(k.value.args[2] as Expr, fallback));
      return fallback;
    default:
      return fallback;
  }
}
