// A canonical text of a CEL expression's structure, so the matcher can tell when two filters share the same conditions.
//
// Two expressions with the same key are the same tree of the same operations on the same constants
// (node ids, which differ between parses, are left out), so they evaluate alike on every record.
// Every name and string is JSON-quoted and every node is bracketed, so distinct trees cannot
// collide. Keys are only compared for equality, never parsed back.
import type { Constant, Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

const q = (s: string): string => JSON.stringify(s);

function constantKey(c: Constant): string {
  const k = c.constantKind;
  switch (k.case) {
    case 'nullValue':
      return 'null';
    case 'boolValue':
      return k.value ? 'true' : 'false';
    case 'int64Value':
      return `${k.value}`;
    case 'uint64Value':
      return `${k.value}u`;
    case 'doubleValue':
      // Object.is tells -0 from 0; the "d" keeps 1.0 apart from the int 1.
      return Object.is(k.value, -0) ? '-0d' : `${k.value}d`;
    case 'stringValue':
      return q(k.value);
    case 'bytesValue':
      return `b'${Buffer.from(k.value).toString('hex')}'`;
    default:
      // Durations, timestamps and unset constants never reach a compiled filter; keep them apart anyway.
      return `?${q(String(k.case))}:${q(JSON.stringify(k.value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : v)))}`;
  }
}

const keyOrEmpty = (e: Expr | undefined): string => (e === undefined ? '_' : exprKey(e));

export function exprKey(e: Expr): string {
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr':
      return constantKey(k.value);
    case 'identExpr':
      return `id(${q(k.value.name)})`;
    case 'selectExpr':
      return `${k.value.testOnly ? 'has' : 'sel'}(${keyOrEmpty(k.value.operand)},${q(k.value.field)})`;
    case 'callExpr':
      return `call(${q(k.value.function)},${keyOrEmpty(k.value.target)},[${k.value.args.map(exprKey).join(',')}])`;
    case 'listExpr':
      return `list([${k.value.elements.map(exprKey).join(',')}],[${k.value.optionalIndices.join(',')}])`;
    case 'structExpr': {
      const entries = k.value.entries.map((en) => {
        const key = en.keyKind.case === 'fieldKey' ? q(en.keyKind.value) : en.keyKind.case === 'mapKey' ? exprKey(en.keyKind.value) : '_';
        return `${en.keyKind.case ?? '_'}(${key},${keyOrEmpty(en.value)},${en.optionalEntry ? 1 : 0})`;
      });
      return `struct(${q(k.value.messageName)},[${entries.join(',')}])`;
    }
    case 'comprehensionExpr': {
      const c = k.value;
      const parts = [q(c.iterVar), q(c.iterVar2), keyOrEmpty(c.iterRange), q(c.accuVar), keyOrEmpty(c.accuInit)];
      parts.push(keyOrEmpty(c.loopCondition), keyOrEmpty(c.loopStep), keyOrEmpty(c.result));
      return `comp(${parts.join(',')})`;
    }
    default:
      return 'empty';
  }
}
