// Child-process side of isolate.ts: imports a module, calls one export with the JSON argument, prints the result.
import { RESULT_PREFIX } from './isolate.js';

const [moduleUrl, name, arg] = process.argv.slice(2);
if (moduleUrl === undefined || name === undefined || arg === undefined) {
  process.stderr.write('usage: child.ts <module url> <export> <json argument>\n');
  process.exit(2);
}
const mod = (await import(moduleUrl)) as Record<string, unknown>;
const fn = mod[name];
if (typeof fn !== 'function') {
  process.stderr.write(`${moduleUrl} has no exported function ${name}\n`);
  process.exit(2);
}
const result: unknown = await (fn as (a: unknown) => unknown)(JSON.parse(arg));
process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
