// The type environment of a traffic event's filter: `ev` shaped by the event's Filterable fields, and the field-use rules.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { TRAFFIC_FIELDS, fieldOf, type FieldType, type TrafficEventType } from '../events/catalog.js';
import { BOOL, DYN, INT, STRING, listOf, mapOf, record, type CelT } from './compiler/cel-types.js';
import type { Reference, TypeEnv } from './compiler/checker.js';
import { NETWORK_FUNCTIONS, STANDARD_FUNCTIONS } from './compiler/declarations.js';
import { childrenOf } from './compiler/measure.js';

/** The one variable of a filter: the raw record. */
export const EVENT_VARIABLE = 'ev';

const FUNCTIONS = new Map([...STANDARD_FUNCTIONS, ...NETWORK_FUNCTIONS]);

function celTypeOf(t: FieldType): CelT {
  switch (t) {
    case 'string':
      return STRING;
    case 'bool':
      return BOOL;
    case 'int32':
    case 'int64':
      return INT;
    case 'headers':
      return mapOf(STRING, listOf(STRING));
    case 'logs':
      return listOf(mapOf(STRING, DYN));
    default:
      return DYN;
  }
}

class Group {
  readonly members = new Map<string, Group | CelT>();
}

function toRecord(name: string, g: Group): CelT {
  const fields = new Map<string, CelT>();
  for (const [k, v] of g.members) fields.set(k, v instanceof Group ? toRecord(`${name}.${k}`, v) : v);
  return record(name, fields);
}

/** `ev` as a record type holding only the event's Filterable fields, nested by their dotted names. */
export function eventRecordType(eventType: TrafficEventType): CelT {
  const root = new Group();
  for (const f of TRAFFIC_FIELDS[eventType]) {
    if (!f.filterable) continue;
    const parts = f.name.split('.');
    let g = root;
    for (const p of parts.slice(0, -1)) {
      let next = g.members.get(p);
      if (!(next instanceof Group)) {
        next = new Group();
        g.members.set(p, next);
      }
      g = next;
    }
    g.members.set(parts[parts.length - 1] as string, celTypeOf(f.type));
  }
  return toRecord(EVENT_VARIABLE, root);
}

const envCache = new Map<TrafficEventType, TypeEnv>();

export function filterEnv(eventType: TrafficEventType): TypeEnv {
  let env = envCache.get(eventType);
  if (env === undefined) {
    env = { variables: new Map([[EVENT_VARIABLE, eventRecordType(eventType)]]), functions: FUNCTIONS };
    envCache.set(eventType, env);
  }
  return env;
}

export function filterableFieldNames(eventType: TrafficEventType): string[] {
  return TRAFFIC_FIELDS[eventType].filter((f) => f.filterable).map((f) => `${EVENT_VARIABLE}.${f.name}`);
}

export interface FieldUseProblem {
  readonly code: 'unknown_field' | 'not_filterable' | 'type';
  /** The `ev` identifier the offending chain starts at. */
  readonly exprId: bigint;
  readonly message: string;
}

/**
 * Checks every use of `ev`: it must be the root of a selection chain that ends at a Filterable
 * field (or be tested with has()). Using `ev` or a group such as `ev.conn` as a value would let a
 * filter reach the event's other fields through dyn(), so that is refused too.
 */
export function checkFieldUses(root: Expr, refs: ReadonlyMap<bigint, Reference>, eventType: TrafficEventType): FieldUseProblem[] {
  const problems: FieldUseProblem[] = [];
  const filterable = filterableFieldNames(eventType);
  const visit = (e: Expr, parents: readonly Expr[]): void => {
    const k = e.exprKind;
    if (k.case === 'identExpr' && k.value.name === EVENT_VARIABLE && refs.get(e.id)?.kind !== 'local') {
      const parts: string[] = [];
      let testOnly = false;
      for (let i = parents.length - 1; i >= 0; i--) {
        const p = parents[i]?.exprKind;
        if (p?.case !== 'selectExpr') break;
        parts.push(p.value.field);
        if (p.value.testOnly) {
          testOnly = true;
          break;
        }
      }
      const problem = fieldProblem(eventType, parts, testOnly, filterable);
      if (problem !== undefined) problems.push({ ...problem, exprId: e.id });
      return;
    }
    const next = [...parents, e];
    for (const c of childrenOf(e)) visit(c, next);
  };
  visit(root, []);
  return problems;
}

function fieldProblem(
  eventType: TrafficEventType,
  parts: readonly string[],
  testOnly: boolean,
  filterable: readonly string[],
): Omit<FieldUseProblem, 'exprId'> | undefined {
  const path = parts.join('.');
  const shown = [EVENT_VARIABLE, ...parts].join('.');
  const spec = path === '' ? undefined : fieldOf(eventType, path);
  if (spec !== undefined) {
    if (spec.filterable) return undefined;
    return {
      code: 'not_filterable',
      message: `${shown} is a field of ${eventType} but is not filterable; filters may use ${filterable.join(', ')}.`,
    };
  }
  const groupFields = filterable.filter((f) => f.startsWith(`${shown}.`));
  if (groupFields.length > 0) {
    if (testOnly) return undefined;
    return { code: 'type', message: `${shown} is a group of fields, not a value; use one of ${groupFields.join(', ')}.` };
  }
  const anyField = path === '' || TRAFFIC_FIELDS[eventType].some((f) => f.name.startsWith(`${path}.`));
  if (anyField)
    return {
      code: 'not_filterable',
      message: `${shown} holds no filterable field of ${eventType}; filters may use ${filterable.join(', ')}.`,
    };
  return { code: 'unknown_field', message: `${shown} is not a field of ${eventType}.` };
}
