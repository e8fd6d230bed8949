// The public shapes of the filter engine: what compile() returns and what the matcher consumes.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { TrafficEventType } from '../events/catalog.js';

/** One problem found in a filter's text. Lines and columns are 1-based. */
export interface FilterProblem {
  readonly line: number;
  readonly column: number;
  /** A sentence, e.g. "ev.conn.client_port is not a field of tcp_connection_closed.v0". */
  readonly message: string;
  readonly code:
    | 'syntax'
    | 'unknown_field'
    | 'not_filterable'
    | 'type'
    | 'not_bool'
    | 'unknown_function'
    | 'too_large'
    /** The filter's work bound per evaluation passes the limit: `cost` and `limit` say by how much. */
    | 'too_costly'
    /** A constant argument that can never be valid, e.g. an invalid regular expression or CIDR. */
    | 'invalid_argument';
  /** For too_costly: the filter's work bound per evaluation, and the limit (src/cel/limits.ts). */
  readonly cost?: number;
  readonly limit?: number;
}

/**
 * A compiled filter. `evaluate` never throws: a CEL error value, at run time, means "no match"
 * and is counted by the engine's error counter.
 */
export interface CompiledFilter {
  readonly text: string;
  readonly eventType: TrafficEventType;
  /** The parsed (macro-expanded) AST, as @bufbuild/cel produces it; the matcher reads it to build its index. */
  readonly expr: Expr;
  /** The bound on one evaluation's work, in units of about one character read or written (src/cel/compiler/work.ts). */
  readonly cost: number;
  /** `ev` is the raw record in its nested shape ({group: {field: value}}), holding at least its filterable fields. */
  evaluate(ev: unknown): boolean;
  /**
   * The filter's test for records on which its top-level conjunct number `index` (as conjuncts() in
   * matcher-analysis.ts splits the expression) is known to be true: the other conjuncts alone, with
   * the same result and error counting on those records. The matcher uses it after an index hit
   * has proved that conjunct, so the proof is not repeated.
   */
  assuming?(index: number): (ev: unknown) => boolean;
}

export type CompileResult =
  | { readonly ok: true; readonly filter: CompiledFilter }
  | { readonly ok: false; readonly problems: readonly FilterProblem[] };
